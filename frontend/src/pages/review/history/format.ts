// How a history value is shown: label lists as chips, other values as compact JSON.

export function isLabelList(v: unknown): v is string[] {
  return Array.isArray(v) && v.length > 0 && v.every((x) => typeof x === "string");
}

export function compact(v: unknown): string {
  if (v == null || v === "") return "—";
  if (typeof v === "string") return v;
  const s = JSON.stringify(v);
  return s.length > 200 ? `${s.slice(0, 199)}…` : s;
}

export const KIND_NAMES: Record<string, string> = { annotation: "annotation", span: "span", gold_document: "gold document", gold_span: "gold span" };

/** A change whose earlier state was never recorded (e.g. a row copied in bulk into a new draft). */
export const unknownBefore = (e: { action: string; changes: { before: unknown }[] }) =>
  e.action === "changed" && e.changes.length > 0 && e.changes.every((c) => c.before == null);
