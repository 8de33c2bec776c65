// The adjudication page's keys, no DOM (the page runs the action): "[" and "]" change the
// document, as on the annotation and review pages; "<" "," and ">" "." move the selected gold
// span's start and end by one sentence (with Shift the span grows, without it shrinks).

export interface NavKeyPress {
  key: string;
  ctrlKey: boolean;
  metaKey: boolean;
  altKey: boolean;
}

/** -1 (previous), 1 (next), or null: not ours, or typing in a field, or a dialog is open. */
export function adjNavKey(e: NavKeyPress, { typing, dialog }: { typing: boolean; dialog: boolean }): -1 | 1 | null {
  if (typing || dialog || e.ctrlKey || e.metaKey || e.altKey) return null;
  if (e.key === "[") return -1;
  if (e.key === "]") return 1;
  return null;
}

export interface BoundaryMove {
  edge: "start" | "end";
  delta: -1 | 1;
}

const BOUNDARY_KEYS: Record<string, BoundaryMove> = {
  "<": { edge: "start", delta: -1 },
  ",": { edge: "start", delta: 1 },
  ">": { edge: "end", delta: 1 },
  ".": { edge: "end", delta: -1 },
};

/** The boundary move of a key ("<" start earlier, "," start later, ">" end later, "." end earlier), or null. */
export function boundaryKey(e: NavKeyPress): BoundaryMove | null {
  if (e.ctrlKey || e.metaKey || e.altKey) return null;
  return BOUNDARY_KEYS[e.key] ?? null;
}

/** "k / n" for the queue position, "– / n" for a document outside the queue. */
export function positionText(position: number | null, total: number): string {
  return `${position ?? "–"} / ${total}`;
}
