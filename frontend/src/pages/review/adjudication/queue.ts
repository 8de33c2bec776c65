// Finding the document to adjudicate after this one, in the queue's order.

import { get } from "../../../api";
import type { Queue, QueueRow } from "../../../types";

/**
 * The document to adjudicate after `current`: the queue lists undecided documents first, so
 * the first undecided row other than `current` (null when every other one is decided).
 */
export function nextInQueue(rows: QueueRow[], current: number): number | null {
  return rows.find((r) => !r.adjudicated && r.document.id !== current)?.document.id ?? null;
}

/** Where a row stands: "to decide" (first), or "decided" (last). */
export function decisionText(row: QueueRow): string {
  return row.adjudicated ? "decided" : "to decide";
}

/** Reads the queue (200 rows a page, at most 10 pages) and picks the next document. */
export async function fetchNext(projectId: number, current: number): Promise<number | null> {
  const rows: QueueRow[] = [];
  for (let page = 1; page <= 10; page++) {
    const q = await get<Queue>(`/api/projects/${projectId}/adjudication/?page=${page}&page_size=200`);
    rows.push(...q.results);
    if (rows.length >= q.count || !q.results.length) break;
  }
  return nextInQueue(rows, current);
}

/** A document's disagreement (0 to 1, the share of sentences that differ) as a percentage. */
export function disagreementText(share: number | null): string {
  if (share == null) return "—";
  if (share === 0) return "none (0%)";
  return `${Math.round(share * 100)}%`;
}

/** The adjudication page's save button: "Saved" only when the draft holds exactly what is shown. */
export function saveLabel(p: { saving: boolean; dirty: boolean; stored: boolean }): string {
  if (p.saving) return "Saving…";
  return p.dirty || !p.stored ? "Save" : "Saved";
}
