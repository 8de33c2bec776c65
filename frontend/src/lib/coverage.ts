// Partial rows (scored on part of the gold texts or items): never shown as a column's best,
// and marked with their coverage wherever they are charted.

import type { LeaderboardRow, TextCoverage } from "../types";

/** Whether a coverage covers less than the whole gold (no coverage: complete). */
export function isPartial(c: TextCoverage | { items: number; of: number; complete?: boolean } | null | undefined): boolean {
  if (!c) return false;
  if ("texts" in c) return c.texts < c.of;
  return c.complete === false || c.items < c.of;
}

/** " (4/200 texts)" for a partial coverage, "" for a complete one. */
export function coverageMark(c: TextCoverage | null | undefined, unit = "texts"): string {
  return c && isPartial(c) ? ` (${c.texts}/${c.of} ${unit})` : "";
}

/** The best F1 of a level among the rows scored on the whole gold (partial rows never count). */
export function bestF1(rows: LeaderboardRow[], level: string): number | null {
  let best: number | null = null;
  for (const r of rows) {
    if (isPartial(r.coverage)) continue;
    const f1 = r.levels?.[level]?.f1;
    if (f1 != null && (best == null || f1 > best)) best = f1;
  }
  return best;
}
