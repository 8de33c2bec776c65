// Pure helpers of the "compare two rows" panels: the rows one can pick and the lines of a
// paired test between two of them (item results and the leaderboard of a gold version).

import type { ItemPair, PairTest, SpanPair } from "../types";

export interface PairOption {
  key: string;
  label: string;
}

/** One option per row key, in board order (an item row appears once per profile). */
export function pairOptions(rows: { key?: string; name: string; variant_label?: string }[]): PairOption[] {
  const seen = new Map<string, string>();
  for (const r of rows) {
    if (r.key && !seen.has(r.key)) seen.set(r.key, r.variant_label ? `${r.name} · ${r.variant_label}` : r.name);
  }
  return [...seen].map(([key, label]) => ({ key, label }));
}

export interface PairLine {
  id: string;
  /** "definition · types (mean_s)"; empty for a leaderboard's single test. */
  where: string;
  test: PairTest | null;
  significant: boolean;
  reason: string | null;
}

function isItemPair(pair: ItemPair | SpanPair): pair is ItemPair {
  return Array.isArray((pair as ItemPair).tests);
}

/** The tests of a pair, one line per profile and task (item results) or one (leaderboard). */
export function pairLines(pair: ItemPair | SpanPair): PairLine[] {
  if (!isItemPair(pair)) return [{ id: "texts", where: "", test: pair.test, significant: pair.significant, reason: pair.reason }];
  return pair.tests.map((t) => ({
    id: `${t.profile}:${t.field}`,
    where: `${t.profile} · ${t.field}${t.metric ? ` (${t.metric})` : ""}`,
    test: t.test,
    significant: t.significant,
    reason: t.reason,
  }));
}

/** "A − B = +0.200, 95% CI [+0.050, +0.350], p = 0.031 over 20 (significant at 0.05)". */
export function pairText(line: PairLine, alpha: number): string {
  const t = line.test;
  if (!t) return `no paired test${line.reason ? ` (${line.reason})` : ""}`;
  const sign = (x: number) => `${x >= 0 ? "+" : ""}${x.toFixed(3)}`;
  const verdict = line.significant ? "significant" : "not significant";
  return (
    `${t.a.toFixed(3)} − ${t.b.toFixed(3)} = ${sign(t.difference)}, ${Math.round(t.confidence * 100)}% CI [${sign(t.ci[0])}, ${sign(t.ci[1])}], ` +
    `p = ${t.p_value.toFixed(3)} over ${t.units} (${verdict} at ${alpha})`
  );
}
