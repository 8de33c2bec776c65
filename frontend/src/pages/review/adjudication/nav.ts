// The adjudication page's previous / next document keys, "<" and ">" ("[" "]" "{" "}" move a
// gold span's boundaries there): no DOM, the page runs the move.

export interface NavKeyPress {
  key: string;
  ctrlKey: boolean;
  metaKey: boolean;
  altKey: boolean;
}

/** -1 (previous), 1 (next), or null: not ours, or typing in a field, or a dialog is open. */
export function adjNavKey(e: NavKeyPress, { typing, dialog }: { typing: boolean; dialog: boolean }): -1 | 1 | null {
  if (typing || dialog || e.ctrlKey || e.metaKey || e.altKey) return null;
  if (e.key === "<") return -1;
  if (e.key === ">") return 1;
  return null;
}

/** "k / n" for the queue position, "– / n" for a document outside the queue. */
export function positionText(position: number | null, total: number): string {
  return `${position ?? "–"} / ${total}`;
}
