import type { Me } from "../../../types";

/** Placeholder: built by issue 11. */
export function DocumentHistoryPage(props: { me: Me; id: number }) {
  void props;
  return <main class="page">Coming soon</main>;
}
