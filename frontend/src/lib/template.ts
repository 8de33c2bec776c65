// Justification templates: "E claims P, so P is true" with slots ["E", "P"] becomes a list
// of text and slot pieces; filled in with the annotator's values for a preview.

export type Piece = { kind: "text"; text: string } | { kind: "slot"; slot: string };

function escapeRegExp(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}

export function parseTemplate(template: string, slots: string[]): Piece[] {
  if (!template) return [];
  const names = [...new Set(slots)].filter(Boolean).sort((a, b) => b.length - a.length);
  if (!names.length) return [{ kind: "text", text: template }];
  const re = new RegExp(
    `(?<![A-Za-z0-9_])(${names.map(escapeRegExp).join("|")})(?![A-Za-z0-9_])`,
    "g",
  );
  const pieces: Piece[] = [];
  let last = 0;
  for (const m of template.matchAll(re)) {
    const at = m.index ?? 0;
    if (at > last) pieces.push({ kind: "text", text: template.slice(last, at) });
    pieces.push({ kind: "slot", slot: m[1] });
    last = at + m[0].length;
  }
  if (last < template.length) pieces.push({ kind: "text", text: template.slice(last) });
  return pieces;
}

/** Slots in the order they first appear in the template, then any not mentioned in it. */
export function slotOrder(template: string, slots: string[]): string[] {
  const seen: string[] = [];
  for (const p of parseTemplate(template, slots)) {
    if (p.kind === "slot" && !seen.includes(p.slot)) seen.push(p.slot);
  }
  for (const s of slots) if (!seen.includes(s)) seen.push(s);
  return seen;
}

/** The template with filled slots substituted; unfilled slots stay as their names. */
export function fillTemplate(
  template: string,
  slots: string[],
  values: Record<string, string>,
): string {
  return parseTemplate(template, slots)
    .map((p) => (p.kind === "text" ? p.text : values[p.slot]?.trim() || p.slot))
    .join("");
}

/** How a project treats its labels' templates: required (submit refuses empty slots),
 * optional (submit warns) or off (no template shown). */
export type TemplateMode = "required" | "optional" | "off";

export interface EmptySlots {
  /** The span's key on the page. */
  key: string;
  label: string;
  slots: string[];
}

/** Every (span, label) whose template has a blank slot, in the spans' order; "no fallacy"
 * and labels without slots have none. Mirrors annotations/justification.py. */
export function emptySlots(
  spans: { key: string; labels: string[]; details: Record<string, { slots?: Record<string, string> } | undefined> }[],
  slotsOf: (label: string) => string[],
): EmptySlots[] {
  const out: EmptySlots[] = [];
  for (const span of spans) {
    for (const label of span.labels) {
      const values = span.details[label]?.slots ?? {};
      const missing = slotsOf(label).filter((slot) => !values[slot]?.trim());
      if (missing.length) out.push({ key: span.key, label, slots: missing });
    }
  }
  return out;
}
