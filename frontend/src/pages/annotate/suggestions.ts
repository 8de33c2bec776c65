// Suggestions on the annotation page: a finished run's labels, one per sentence, that the
// annotator accepts (the server makes it a span of their own) or rejects. Pure helpers:
// the order they are listed in, which are still undecided, which one the keyboard acts
// on, and how an accepted suggestion's span joins the page's spans.

import { sortLabels } from "../../lib/labels";
import type { ServerSpan } from "../../types";
import { keyOf, type LocalSpan, rangeText, sortSpans, toLocal } from "./spans";

export type DecisionKind = "accept" | "reject";

export interface SuggestionRun {
  id: number;
  name: string;
  /** The model's readable name (never a path). */
  model_label: string;
}

/** A suggestion as `GET /api/evaluation/documents/{id}/suggestions/` serves it. */
export interface Suggestion {
  id: number;
  run: SuggestionRun;
  unit_index: number;
  start: number;
  end: number;
  labels: string[];
  /** Mine; null: undecided. */
  decision: DecisionKind | null;
  /** The span my accept made. */
  span: number | null;
}

export interface DocumentSuggestions {
  /** False: an unassisted project; the page shows no suggestion. */
  assisted: boolean;
  suggestions: Suggestion[];
}

/** A stored decision (`POST .../decision/`, `.../accept-sentence/`, a 409's `current`). */
export interface Decision {
  suggestion: number;
  annotator: number;
  decision: DecisionKind;
  decided_at: string;
  span: number | null;
}

/** What the page shows: nothing for an unassisted project, else every suggestion in order. */
export function visibleSuggestions(data: DocumentSuggestions | null): Suggestion[] {
  if (!data || !data.assisted) return [];
  return orderSuggestions(data.suggestions);
}

/** Text order: by sentence, then range, then run name, then id. */
export function orderSuggestions(list: readonly Suggestion[]): Suggestion[] {
  return [...list].sort(
    (a, b) =>
      a.unit_index - b.unit_index ||
      a.start - b.start ||
      b.end - a.end ||
      a.run.name.localeCompare(b.run.name) ||
      a.id - b.id,
  );
}

export const isPending = (s: Suggestion) => s.decision === null;

export const pendingSuggestions = (list: readonly Suggestion[]) => list.filter(isPending);

/** The undecided suggestions of one sentence, in order. */
export const pendingAt = (list: readonly Suggestion[], sentence: number) =>
  list.filter((s) => isPending(s) && s.unit_index === sentence);

/** Sentences that still have an undecided suggestion (marked in the text). */
export function pendingSentences(list: readonly Suggestion[]): Set<number> {
  return new Set(pendingSuggestions(list).map((s) => s.unit_index));
}

/**
 * The suggestion the keys act on: the one chosen before if it is still undecided and on the
 * focused sentence, else the focused sentence's first undecided one (null: none there).
 */
export function focusedSuggestion(list: readonly Suggestion[], sentence: number | null, chosen: number | null): Suggestion | null {
  if (sentence === null) return null;
  const here = pendingAt(list, sentence);
  return here.find((s) => s.id === chosen) ?? here[0] ?? null;
}

/**
 * The undecided suggestion after `current` in text order (wrapping round); without a
 * current one, the first at or after the focused sentence. Null when none is left.
 */
export function nextPending(list: readonly Suggestion[], current: Suggestion | null, sentence: number | null): Suggestion | null {
  const pending = pendingSuggestions(list);
  if (!pending.length) return null;
  if (current) {
    const i = pending.findIndex((s) => s.id === current.id);
    if (i >= 0) return pending[(i + 1) % pending.length];
  }
  const from = sentence ?? -1;
  return pending.find((s) => s.unit_index >= from) ?? pending[0];
}

/** The suggestions with the decisions the server stored (unknown ids are ignored). */
export function applyDecisions(list: readonly Suggestion[], decisions: readonly Decision[]): Suggestion[] {
  if (!decisions.length) return [...list];
  const byId = new Map(decisions.map((d) => [d.suggestion, d]));
  return list.map((s) => {
    const d = byId.get(s.id);
    return d ? { ...s, decision: d.decision, span: d.span } : s;
  });
}

/**
 * The page's spans with a span the server made (an accepted suggestion). It is keyed like
 * any loaded span (its client id), so a span already there (the same span accepted twice,
 * or two runs' identical suggestions) is not added again. `added` says whether it was new.
 */
export function mergeServerSpan(
  spans: readonly LocalSpan[],
  span: ServerSpan,
  labelOrder: string[],
): { spans: LocalSpan[]; key: string; added: boolean } {
  const key = keyOf(span);
  if (spans.some((s) => s.key === key)) return { spans: [...spans], key, added: false };
  return { spans: sortSpans([...spans, toLocal(span, labelOrder)]), key, added: true };
}

/** "run-one · model-1" (the run's name alone when the model is unnamed or the same). */
export function modelText(run: SuggestionRun): string {
  return run.model_label && run.model_label !== run.name ? `${run.name} · ${run.model_label}` : run.name;
}

/** The labels in taxonomy order, joined for display. */
export const labelText = (s: Suggestion, labelOrder: string[]) => sortLabels(s.labels, labelOrder).join(" | ");

/** "2 accepted, 1 rejected" (empty when nothing is decided). */
export function decidedText(list: readonly Suggestion[]): string {
  const acc = list.filter((s) => s.decision === "accept").length;
  const rej = list.filter((s) => s.decision === "reject").length;
  return [acc ? `${acc} accepted` : "", rej ? `${rej} rejected` : ""].filter(Boolean).join(", ");
}

/** What the page says after `decision` on `s` stored the decisions `made`. */
export function decisionMessage(s: Suggestion, decision: DecisionKind | "sentence", made: readonly Decision[], labelOrder: string[]): string {
  if (decision === "reject") return `Rejected: ${labelText(s, labelOrder)} (${modelText(s.run)}).`;
  if (decision === "accept") return `Accepted: ${labelText(s, labelOrder)}, now your span (E opens it).`;
  const accepted = made.filter((d) => d.decision === "accept").length;
  return `Accepted ${accepted} suggestion${accepted === 1 ? "" : "s"} on ${rangeText(s.unit_index, s.unit_index, true)}.`;
}
