// Pure helpers of the leaderboard table: a row's badge and the best F1 of each level.

import { bestF1 } from "../../lib/coverage";
import type { LeaderboardRow } from "../../types";

/** What a row is: a model's run, a baseline (random labels, no answer) or a human. */
export function kindBadge(r: LeaderboardRow): { text: string; className: string; title?: string } {
  if (r.kind === "annotator") return { text: "human", className: "kind-annotator" };
  if (r.baseline) return { text: "baseline", className: "subtle kind-baseline", title: `A reference point, not a model (${r.backend}): never a column's best` };
  return { text: "model", className: "kind-run" };
}

/** The best F1 of each level among a group's rows that count: scored on the whole gold, not baselines. */
export function bestPerLevel(rows: LeaderboardRow[], levels: string[]): Record<string, number | null> {
  const counted = rows.filter((r) => !r.baseline);
  return Object.fromEntries(levels.map((l) => [l, bestF1(counted, l)]));
}
