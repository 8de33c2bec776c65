import type { Me } from "../../../types";

/** Placeholder: built by issue 11. */
export function AdjudicatePage(props: { me: Me; projectId: number; documentId: number }) {
  void props;
  return <main class="page">Coming soon</main>;
}
