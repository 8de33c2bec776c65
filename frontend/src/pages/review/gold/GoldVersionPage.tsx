import type { Me } from "../../../types";

/** Placeholder: built by issue 11. */
export function GoldVersionPage(props: { me: Me; projectId: number; version: number }) {
  void props;
  return <main class="page">Coming soon</main>;
}
