// Pure logic of the item page: ranking labels, segments from a text selection, the pieces of
// the text to highlight, and what a submission still needs (mirrors
// annotations/services/responses.py: every answer field, ratings optional).

import { offsetsOf } from "../../lib/offsets";
import type { ItemAnswer, ItemField, ItemResponse, Segment } from "../../types";

export const RATING_KINDS = new Set(["likert", "rubric"]);

// ---- ranked -------------------------------------------------------------------------------

/** Add a label at the end of the ranking (ignored when present or the ranking is full). */
export function rankAdd(ranking: readonly string[], label: string, max: number): string[] {
  if (ranking.includes(label) || ranking.length >= max) return [...ranking];
  return [...ranking, label];
}

/** Move the label at `index` by `delta` places (clamped to the list). */
export function rankMove(ranking: readonly string[], index: number, delta: number): string[] {
  const out = [...ranking];
  const to = Math.max(0, Math.min(out.length - 1, index + delta));
  if (index < 0 || index >= out.length || to === index) return out;
  const [label] = out.splice(index, 1);
  out.splice(to, 0, label);
  return out;
}

export function rankRemove(ranking: readonly string[], label: string): string[] {
  return ranking.filter((l) => l !== label);
}

// ---- segments -----------------------------------------------------------------------------

/** The segment a selection [a, b) of `text` makes (either order, code-point offsets), trimmed
 * of blanks at both ends and clamped to the text; null when nothing but blanks is selected. */
export function segmentFromSelection(text: string, a: number, b: number, label: string): Segment | null {
  const o = offsetsOf(text);
  let start = Math.max(0, Math.min(a, b));
  let end = Math.min(o.length, Math.max(a, b));
  // Blanks are single UTF-16 units, so one unit trimmed is one code point.
  while (start < end && /\s/.test(text[o.toUnit(start)])) start++;
  while (end > start && /\s/.test(text[o.toUnit(end) - 1])) end--;
  if (start >= end || !label) return null;
  return [start, end, label];
}

/** Segments with one more, in text order, without an identical duplicate. */
export function addSegment(segments: readonly Segment[], segment: Segment): Segment[] {
  const same = (s: Segment) => s[0] === segment[0] && s[1] === segment[1] && s[2] === segment[2];
  const out = segments.some(same) ? [...segments] : [...segments, segment];
  return out.sort((x, y) => x[0] - y[0] || x[1] - y[1] || x[2].localeCompare(y[2]));
}

export function removeSegment(segments: readonly Segment[], index: number): Segment[] {
  return segments.filter((_, i) => i !== index);
}

export interface Piece {
  start: number;
  end: number;
  /** Labels of the segments covering this piece (empty: plain text). */
  labels: string[];
}

/** The text cut at every segment boundary, each piece with the labels covering it. */
export function pieces(length: number, segments: readonly Segment[]): Piece[] {
  const cuts = new Set([0, length]);
  for (const [s, e] of segments) {
    if (s >= 0 && e <= length && s < e) {
      cuts.add(s);
      cuts.add(e);
    }
  }
  const sorted = [...cuts].sort((x, y) => x - y);
  const out: Piece[] = [];
  for (let i = 0; i + 1 < sorted.length; i++) {
    const [start, end] = [sorted[i], sorted[i + 1]];
    const labels = segments.filter(([s, e]) => s <= start && end <= e).map(([, , l]) => l);
    out.push({ start, end, labels: [...new Set(labels)] });
  }
  return out;
}

// ---- the response -------------------------------------------------------------------------

export function isAnswered(field: ItemField, value: ItemAnswer | null | undefined): boolean {
  if (value === null || value === undefined) return false;
  if (field.kind === "free-text") return typeof value === "string" && value.trim() !== "";
  return true;
}

/** Names of the answer fields still unanswered (likert and rubric may be left out). */
export function missingAnswers(fields: readonly ItemField[], response: ItemResponse): string[] {
  return fields.filter((f) => !RATING_KINDS.has(f.kind) && !isAnswered(f, response[f.name])).map((f) => f.name);
}

/** The response as shown: the saved one with the changes not saved yet (null clears). */
export function withChanges(saved: ItemResponse, changes: Record<string, ItemAnswer | null>): ItemResponse {
  const out: ItemResponse = { ...saved };
  for (const [name, value] of Object.entries(changes)) {
    if (value === null) delete out[name];
    else out[name] = value;
  }
  return out;
}

/** The score range of a likert or rubric field (default 1..5). */
export function scale(field: ItemField): number[] {
  const low = field.min ?? 1;
  const high = field.max ?? 5;
  const out: number[] = [];
  for (let v = low; v <= high; v++) out.push(v);
  return out;
}

/** Rubric criteria as lines, whatever shape the form gives (text, list, {score: text}). */
export function criteriaLines(criteria: ItemField["criteria"]): string[] {
  if (!criteria) return [];
  if (typeof criteria === "string") return criteria.split("\n").filter((l) => l.trim());
  if (Array.isArray(criteria)) return criteria.map(String);
  return Object.entries(criteria).map(([k, v]) => `${k}: ${v}`);
}

/** A field's heading: its title, else its name. */
export function fieldTitle(field: ItemField): string {
  return field.title || field.name.replace(/_/g, " ");
}

/** The per-field messages of a 400 body: {"response.<field>": ["message"]} → {field: message}. */
export function fieldErrors(data: unknown): Record<string, string> {
  const out: Record<string, string> = {};
  if (data && typeof data === "object") {
    for (const [key, value] of Object.entries(data as Record<string, unknown>)) {
      const message = Array.isArray(value) ? String(value[0]) : String(value);
      out[key.startsWith("response.") ? key.slice("response.".length) : key] = message;
    }
  }
  return out;
}
