// The gold spans a reviewer builds for one document: pure functions over plain data.
//
// A gold span's labels are alternatives ("no fallacy" may be one of them, never alone);
// proposed_by remembers which annotators gave each label. Boundaries are whole sentences.

import { type AdjSpan, NO_FALLACY, type Proposal } from "../../../types";

export type Bounds = [number, number][];

export interface GoldSpanDraft {
  key: string;
  start: number;
  end: number;
  labels: string[];
  explanations: Record<string, string>;
  slots: Record<string, Record<string, string>>;
  proposed_by: Record<string, number[]>;
}

let counter = 0;
export const newKey = () => `g${++counter}`;

const sortLabels = (labels: Iterable<string>) => [...new Set(labels)].sort();

export function fromServer(span: AdjSpan): GoldSpanDraft {
  const details = span.details ?? {};
  return {
    key: span.id != null ? `s${span.id}` : newKey(),
    start: span.start,
    end: span.end,
    labels: sortLabels(span.labels),
    explanations: Object.fromEntries(Object.entries(details).map(([l, d]) => [l, d.explanation ?? ""])),
    slots: Object.fromEntries(Object.entries(details).map(([l, d]) => [l, { ...(d.slots ?? {}) }])),
    proposed_by: clone(span.proposed_by ?? {}),
  };
}

function clone(p: Record<string, number[]>): Record<string, number[]> {
  return Object.fromEntries(Object.entries(p).map(([k, v]) => [k, [...v]]));
}

function mergeProposed(a: Record<string, number[]>, b: Record<string, number[]>): Record<string, number[]> {
  const out = clone(a);
  for (const [label, ids] of Object.entries(b)) out[label] = [...new Set([...(out[label] ?? []), ...ids])].sort((x, y) => x - y);
  return out;
}

export function fromProposal(p: Proposal): GoldSpanDraft {
  return { key: newKey(), start: p.start, end: p.end, labels: sortLabels(p.labels), explanations: {}, slots: {}, proposed_by: clone(p.proposed_by) };
}

/** Sentence indices [first, last] a range covers (the sentences it overlaps). */
export function sentenceRange(bounds: Bounds, start: number, end: number): [number, number] {
  let first = -1;
  let last = -1;
  bounds.forEach(([s, e], i) => {
    if (s < end && start < e) {
      if (first < 0) first = i;
      last = i;
    }
  });
  return [Math.max(first, 0), Math.max(last, 0)];
}

/** The range snapped outward to whole sentences. */
export function snap(bounds: Bounds, start: number, end: number): [number, number] {
  if (!bounds.length) return [start, end];
  const [first, last] = sentenceRange(bounds, start, end);
  return [bounds[first][0], bounds[last][1]];
}

/**
 * Annotators' spans merged into one gold span: the union of their ranges (snapped) and of
 * their labels, each label remembering who gave it.
 */
export function merge(bounds: Bounds, picked: { annotator: number; span: AdjSpan }[]): GoldSpanDraft | null {
  if (!picked.length) return null;
  const start = Math.min(...picked.map((p) => p.span.start));
  const end = Math.max(...picked.map((p) => p.span.end));
  const [s, e] = snap(bounds, start, end);
  let proposed: Record<string, number[]> = {};
  for (const { annotator, span } of picked) {
    proposed = mergeProposed(proposed, Object.fromEntries(span.labels.map((l) => [l, [annotator]])));
  }
  const labels = sortLabels(picked.flatMap((p) => p.span.labels));
  if (labels.length === 1 && labels[0] === NO_FALLACY) return null;
  return { key: newKey(), start: s, end: e, labels, explanations: {}, slots: {}, proposed_by: proposed };
}

export function toggleLabel(span: GoldSpanDraft, label: string): GoldSpanDraft {
  const has = span.labels.includes(label);
  const labels = has ? span.labels.filter((l) => l !== label) : sortLabels([...span.labels, label]);
  if (!labels.length || (labels.length === 1 && labels[0] === NO_FALLACY)) return span; // never empty or ⊥ alone
  return { ...span, labels };
}

export const toggleNoFallacy = (span: GoldSpanDraft) => toggleLabel(span, NO_FALLACY);

/** Move one boundary by whole sentences (delta -1 or +1); a span keeps at least one sentence. */
export function moveBoundary(bounds: Bounds, span: GoldSpanDraft, edge: "start" | "end", delta: number): GoldSpanDraft {
  const [first, last] = sentenceRange(bounds, span.start, span.end);
  let f = first;
  let l = last;
  if (edge === "start") f = Math.min(Math.max(0, first + delta), last);
  else l = Math.max(Math.min(bounds.length - 1, last + delta), first);
  return { ...span, start: bounds[f][0], end: bounds[l][1] };
}

export function setExplanation(span: GoldSpanDraft, label: string, text: string): GoldSpanDraft {
  return { ...span, explanations: { ...span.explanations, [label]: text } };
}

export function sortSpans(spans: GoldSpanDraft[]): GoldSpanDraft[] {
  return [...spans].sort((a, b) => a.start - b.start || a.end - b.end || a.key.localeCompare(b.key));
}

/** The PUT body's spans. */
export function toPayload(spans: GoldSpanDraft[]): AdjSpan[] {
  return sortSpans(spans).map((s) => {
    const details: Record<string, { slots: Record<string, string>; explanation: string }> = {};
    for (const label of s.labels) {
      if (label === NO_FALLACY) continue;
      const explanation = s.explanations[label] ?? "";
      const slots = s.slots[label] ?? {};
      if (explanation || Object.keys(slots).length) details[label] = { slots, explanation };
    }
    const proposed = Object.fromEntries(Object.entries(s.proposed_by).filter(([l]) => s.labels.includes(l)));
    return { start: s.start, end: s.end, labels: s.labels, details, proposed_by: proposed };
  });
}

/** Whether the reviewer's spans differ from the saved ones. */
export function isDirty(saved: GoldSpanDraft[], current: GoldSpanDraft[]): boolean {
  return JSON.stringify(toPayload(saved)) !== JSON.stringify(toPayload(current));
}

/** The gold span at exactly this range, if any (accepting twice adds labels, not a copy). */
export function addOrUnion(spans: GoldSpanDraft[], incoming: GoldSpanDraft): GoldSpanDraft[] {
  const same = spans.find((s) => s.start === incoming.start && s.end === incoming.end);
  if (!same) return sortSpans([...spans, incoming]);
  const merged = { ...same, labels: sortLabels([...same.labels, ...incoming.labels]), proposed_by: mergeProposed(same.proposed_by, incoming.proposed_by) };
  return spans.map((s) => (s === same ? merged : s));
}

/** A new gold span on a range (snapped) with one label the reviewer chose. */
export function newSpan(bounds: Bounds, start: number, end: number, label: string): GoldSpanDraft {
  const [s, e] = snap(bounds, start, end);
  return { key: newKey(), start: s, end: e, labels: [label], explanations: {}, slots: {}, proposed_by: {} };
}

const rangeOf = (s: GoldSpanDraft) => `${s.start}:${s.end}`;
const same = (a?: GoldSpanDraft, b?: GoldSpanDraft) => (a && b ? JSON.stringify(toPayload([a])) === JSON.stringify(toPayload([b])) : a === b);

export interface Rebased {
  spans: GoldSpanDraft[];
  /** Ranges the reviewer changed (added, edited or deleted) since loading. */
  mine: number;
  /** Of those, ranges the other save changed too: the reviewer's version is the one kept. */
  both: number;
}

/**
 * The reviewer's edits (base -> mine) re-applied on top of what someone else saved (theirs),
 * range by range: a range the reviewer did not touch keeps their version, one the reviewer
 * touched takes the reviewer's (a deleted one stays deleted). A moved boundary is a new range.
 */
export function rebase(base: GoldSpanDraft[], mine: GoldSpanDraft[], theirs: GoldSpanDraft[]): Rebased {
  const index = (spans: GoldSpanDraft[]) => new Map(spans.map((s) => [rangeOf(s), s]));
  const [b, m, t] = [index(base), index(mine), index(theirs)];
  const out: GoldSpanDraft[] = [];
  let changed = 0;
  let both = 0;
  for (const range of new Set([...b.keys(), ...m.keys(), ...t.keys()])) {
    const [was, my, their] = [b.get(range), m.get(range), t.get(range)];
    if (same(was, my)) {
      if (their) out.push(their);
      continue;
    }
    changed += 1;
    if (!same(was, their) && !same(my, their)) both += 1;
    if (my) out.push(my);
  }
  return { spans: sortSpans(out), mine: changed, both };
}
