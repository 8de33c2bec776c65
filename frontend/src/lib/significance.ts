// Paired comparisons between leaderboard rows (evaluation/scoring/significance.py): how a
// test is written, and rows split into the groups that are ranked against each other.

import type { PairedComparison, TextCoverage } from "../types";
import { DASH, formatScore } from "./format";

/** What a grouped row carries (the leaderboard's rows extend it). */
export interface ComparableRow {
  group: number;
  rank: number | null;
  coverage: TextCoverage;
  next: PairedComparison | null;
  versus: PairedComparison | null;
}

/** "p < 0.001" or "p = 0.042". */
export function formatP(p: number | null | undefined): string {
  if (p == null || !Number.isFinite(p)) return DASH;
  return p < 0.001 ? "p < 0.001" : `p = ${p.toFixed(3)}`;
}

/** A signed difference: "+0.50", "−0.08", "0.00". */
export function formatDifference(x: number | null | undefined): string {
  const text = formatScore(x == null ? x : Math.abs(x));
  if (text === DASH || x == null || text === formatScore(0)) return text;
  return `${x > 0 ? "+" : "−"}${text}`;
}

/** "+0.50 [+0.25, +0.75] · p = 0.002": the difference, its 95% interval and p. */
export function describeComparison(c: PairedComparison | null | undefined): string {
  if (!c) return DASH;
  return `${formatDifference(c.difference)} [${formatDifference(c.ci_low)}, ${formatDifference(c.ci_high)}] · ${formatP(c.p_value)}`;
}

/** A sentence for a tooltip or screen reader. */
export function explainComparison(c: PairedComparison | null | undefined, unit = "texts"): string {
  if (!c) return "";
  const verdict = c.significant ? "significantly different (p < 0.05)" : "not significantly different (p ≥ 0.05)";
  return `Against ${c.name} on ${c.texts} common ${unit}: difference ${formatDifference(c.difference)}, 95% paired bootstrap interval [${formatDifference(c.ci_low)}, ${formatDifference(c.ci_high)}], ${formatP(c.p_value)}: ${verdict}.`;
}

export interface RowGroup<R extends ComparableRow> {
  group: number;
  coverage: TextCoverage | null;
  /** The heading of the group: its coverage, and whether it is ranked apart. */
  title: string;
  rows: R[];
}

/** Rows split into their groups, in the order they come (the server's display order). */
export function groupRows<R extends ComparableRow>(rows: R[], unit = "texts"): RowGroup<R>[] {
  const groups: RowGroup<R>[] = [];
  for (const row of rows) {
    let last = groups[groups.length - 1];
    if (!last || last.group !== row.group) {
      last = { group: row.group, coverage: row.coverage ?? null, title: "", rows: [] };
      groups.push(last);
    }
    last.rows.push(row);
  }
  for (const g of groups) {
    const ranked = g.rows.some((r) => r.rank != null);
    const c = g.coverage;
    if (!ranked) g.title = "Not ranked: no score at the ranking level";
    else if (c && c.texts === c.of) g.title = `Scored on all ${c.of} ${unit}`;
    else if (c) g.title = `Scored on ${c.texts} of ${c.of} ${unit}: ranked apart`;
  }
  return groups;
}

/** "2/20" when a row covers part of the gold, else its count. */
export function formatCoverage(c: TextCoverage | null | undefined): string {
  if (!c) return DASH;
  return c.texts === c.of ? String(c.texts) : `${c.texts}/${c.of}`;
}
