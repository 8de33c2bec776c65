// Small formatting for the project page (kept out of lib/format.ts, which belongs to the
// evaluation pages' chunk).

export const DASH = "—";

export function dateTime(iso: string | null | undefined): string {
  if (!iso) return DASH;
  const d = new Date(iso);
  if (Number.isNaN(d.getTime())) return iso;
  return d.toLocaleString(undefined, { year: "numeric", month: "short", day: "numeric", hour: "2-digit", minute: "2-digit" });
}

/** 1234 -> "1,234 chars" in the browser's locale. */
export function chars(n: number): string {
  return `${n.toLocaleString()} chars`;
}

export const STATUS_TEXT: Record<string, string> = {
  todo: "To do",
  in_progress: "In progress",
  submitted: "Submitted",
  done: "Done",
  unassigned: "Unassigned",
};
