import type { Me } from "../../../types";

/** Placeholder: built by issue 11. */
export function GoldVersionsPage(props: { me: Me; projectId: number }) {
  void props;
  return <main class="page">Coming soon</main>;
}
