// How a history entry's changes read: label sets as added / removed / kept chips, template
// slots and explanations per label, start and end as one character range, users by name,
// dates and statuses in words; empty values of a created or deleted row are left out.

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

export interface Change {
  field: string;
  before: unknown;
  after: unknown;
}

/** One line of the readable diff: a label set, or a value before and after (null: none). */
export type DiffLine =
  | { kind: "labels"; name: string; added: string[]; removed: string[]; kept: string[] }
  | { kind: "value"; name: string; before: string | null; after: string | null };

const FIELD_NAMES: Record<string, string> = {
  status: "status",
  comments: "notes",
  updated_by: "saved by",
  annotator: "annotator",
  submitted_at: "submitted",
  labels: "labels",
  proposed_by: "proposed by",
};

const STATUS: Record<string, string> = { in_progress: "in progress", submitted: "submitted" };

const ISO_DATE = /^\d{4}-\d\d-\d\dT\d\d:\d\d/;

/** A scalar or list as words: statuses spelt out, dates local, lists joined, objects compact. */
export function plain(field: string, v: unknown): string | null {
  if (v == null || v === "") return null;
  if (Array.isArray(v)) {
    const items = v.map((x) => (typeof x === "string" ? x : x && typeof x === "object" && "text" in x ? String((x as { text: unknown }).text) : compact(x)));
    return items.length ? items.join("; ") : null;
  }
  if (typeof v === "string") {
    if (field === "status") return STATUS[v] ?? v.replace(/_/g, " ");
    if (ISO_DATE.test(v) && !Number.isNaN(Date.parse(v))) return new Date(v).toLocaleString();
    return v;
  }
  if (typeof v === "object") {
    const entries = Object.entries(v as Record<string, unknown>);
    return entries.length ? entries.map(([k, x]) => `${k}: ${plain(field, x) ?? "—"}`).join("; ") : null;
  }
  return String(v);
}

const asLabels = (v: unknown): string[] => (Array.isArray(v) ? v.filter((x): x is string => typeof x === "string") : []);

function labelLine(name: string, before: unknown, after: unknown): DiffLine {
  const b = asLabels(before);
  const a = asLabels(after);
  return { kind: "labels", name, added: a.filter((l) => !b.includes(l)), removed: b.filter((l) => !a.includes(l)), kept: a.filter((l) => b.includes(l)) };
}

type Details = Record<string, { slots?: Record<string, unknown>; explanation?: unknown }>;

const asDetails = (v: unknown): Details => (v && typeof v === "object" && !Array.isArray(v) ? (v as Details) : {});

/** Per label, each template slot and the explanation that changed. */
function detailLines(before: unknown, after: unknown): DiffLine[] {
  const b = asDetails(before);
  const a = asDetails(after);
  const lines: DiffLine[] = [];
  for (const label of [...new Set([...Object.keys(b), ...Object.keys(a)])].sort()) {
    const slots = [...new Set([...Object.keys(b[label]?.slots ?? {}), ...Object.keys(a[label]?.slots ?? {})])].sort();
    for (const slot of slots) {
      const was = plain("slot", b[label]?.slots?.[slot]);
      const now = plain("slot", a[label]?.slots?.[slot]);
      if (was !== now) lines.push({ kind: "value", name: `${label} · slot ${slot}`, before: was, after: now });
    }
    const was = plain("explanation", b[label]?.explanation);
    const now = plain("explanation", a[label]?.explanation);
    if (was !== now) lines.push({ kind: "value", name: `${label} · explanation`, before: was, after: now });
  }
  return lines;
}

function range(changes: Change[], side: "before" | "after"): string | null {
  const start = changes.find((c) => c.field === "start")?.[side];
  const end = changes.find((c) => c.field === "end")?.[side];
  if (typeof start !== "number" && typeof end !== "number") return null;
  return `characters ${typeof start === "number" ? start : "?"}–${typeof end === "number" ? end : "?"}`;
}

/** The readable lines of an entry's changes (see the module comment). */
export function diffLines(changes: Change[]): DiffLine[] {
  const lines: DiffLine[] = [];
  if (changes.some((c) => c.field === "start" || c.field === "end")) {
    const before = range(changes, "before");
    const after = range(changes, "after");
    if (before !== after) lines.push({ kind: "value", name: "range", before, after });
  }
  for (const c of changes) {
    if (c.field === "start" || c.field === "end") continue;
    if (c.field === "labels") {
      const line = labelLine("labels", c.before, c.after);
      if (line.kind === "labels" && line.added.length + line.removed.length + line.kept.length) lines.push(line);
    } else if (c.field === "details") {
      lines.push(...detailLines(c.before, c.after));
    } else {
      const before = plain(c.field, c.before);
      const after = plain(c.field, c.after);
      if (before !== after) lines.push({ kind: "value", name: FIELD_NAMES[c.field] ?? c.field.replace(/_/g, " "), before, after });
    }
  }
  return lines;
}
