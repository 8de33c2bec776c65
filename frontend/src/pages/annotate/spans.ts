// The annotation page's spans: local copies of the server's, and what the text shows of them.

import type { ShownSpan } from "../../components/DocumentText";
import type { SpanFields } from "../../lib/spanOps";
import { categoryColor } from "../../lib/colors";
import { type LabelOption, sortLabels } from "../../lib/labels";
import * as S from "../../lib/selection";
import { NO_FALLACY, type Sentence, type ServerSpan } from "../../types";

export interface LocalSpan extends SpanFields {
  key: string;
}

export type UndoEntry =
  | { kind: "create"; key: string }
  | { kind: "delete"; span: LocalSpan }
  | { kind: "update"; key: string; before: SpanFields };

export const keyOf = (s: ServerSpan) => s.client_id ?? `srv-${s.id}`;

/** The server keeps labels sorted by name; show them in taxonomy order, "no fallacy" last. */
export const toLocal = (s: ServerSpan, order: string[]): LocalSpan => ({
  key: keyOf(s),
  start: s.start,
  end: s.end,
  labels: sortLabels(s.labels, order),
  details: s.details ?? {},
});

export const fieldsOf = (s: SpanFields): SpanFields => ({
  start: s.start,
  end: s.end,
  labels: s.labels,
  details: s.details,
});

export const sortSpans = (spans: LocalSpan[]) =>
  [...spans].sort((a, b) => a.start - b.start || b.end - a.end || (a.key < b.key ? -1 : 1));

export const makeLocal = (key: string, f: SpanFields): LocalSpan => ({ key, ...f });

/** How each span is drawn: its sentence range, colour and short label. */
export function shownSpans(spans: LocalSpan[], sentences: Sentence[], optionByName: Map<string, LabelOption>): ShownSpan[] {
  const out: ShownSpan[] = [];
  for (const s of spans) {
    const r = S.fromChars(s.start, s.end, sentences);
    if (!r) continue;
    const real = s.labels.filter((l) => l !== NO_FALLACY);
    const optional = s.labels.includes(NO_FALLACY);
    const cat = optionByName.get(real[0])?.categoryIndex;
    out.push({
      key: s.key,
      first: r[0],
      last: r[1],
      color: categoryColor(cat),
      optional,
      title: s.labels.join(" | "),
      short: `${real[0] ?? "?"}${real.length > 1 ? ` +${real.length - 1}` : ""}${optional ? " / ⊥" : ""}`,
    });
  }
  return out;
}

export function storage(): Storage | null {
  try {
    return window.localStorage;
  } catch {
    return null;
  }
}

export const isTyping = (t: EventTarget | null) =>
  t instanceof HTMLElement && (t.isContentEditable || ["INPUT", "TEXTAREA", "SELECT"].includes(t.tagName));

/** "Sentence 3" / "Sentences 3–5" for an inclusive range. */
export function rangeText(first: number, last: number, lower = false): string {
  const s = first === last ? `Sentence ${first + 1}` : `Sentences ${first + 1}–${last + 1}`;
  return lower ? s.toLowerCase() : s;
}
