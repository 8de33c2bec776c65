// Per-label F1 of the leaderboard's rows as grouped-bar data (labels on the x axis, one
// dataset per row), kept to the best rows by F1 at the chosen level. A row scored on part of
// the gold carries its coverage in its name ("run (4/200 texts)") and is drawn hatched.

import type { LeaderboardRow } from "../types";
import { coverageMark, isPartial } from "./coverage";

export interface BarDataset {
  label: string;
  kind: LeaderboardRow["kind"];
  data: (number | null)[];
  backgroundColor: string;
  borderColor: string;
  /** Scored on part of the gold: its coverage is in its label and its bars are hatched. */
  partial: boolean;
}

export interface LabelChartData {
  labels: string[];
  datasets: BarDataset[];
  /** Rows with per-label scores at the level (before the limit). */
  available: number;
  /** Charted rows scored on part of the gold. */
  partial: number;
}

/** Colour-blind-friendly (Okabe–Ito + two neutrals), in dataset order. */
export const PALETTE = ["#0072B2", "#E69F00", "#009E73", "#CC79A7", "#56B4E9", "#D55E00", "#F0E442", "#000000", "#999999", "#882255"];

/** A translucent fill for annotators, so humans read apart from models at a glance. */
function fill(color: string, kind: LeaderboardRow["kind"]): string {
  return kind === "annotator" ? `${color}66` : color;
}

export function rowF1(row: LeaderboardRow, level: number | string): number | null {
  const f1 = row.levels?.[String(level)]?.f1;
  return f1 == null || !Number.isFinite(f1) ? null : f1;
}

/** Rows by F1 at a level, best first; rows without a score keep their order, last. */
export function rankRows(rows: LeaderboardRow[], level: number | string): LeaderboardRow[] {
  return rows
    .map((row, i) => ({ row, i, f1: rowF1(row, level) }))
    .sort((a, b) => {
      if (a.f1 == null && b.f1 == null) return a.i - b.i;
      if (a.f1 == null) return 1;
      if (b.f1 == null) return -1;
      return b.f1 - a.f1 || a.i - b.i;
    })
    .map((x) => x.row);
}

/** "Name" for a model row, "Name (human)" for an annotator, made unique within the chart;
 *  a partial row's coverage after it: "Name (4/200 texts)". */
export function datasetName(row: LeaderboardRow, taken: Set<string>): string {
  const base = (row.kind === "annotator" ? `${row.name} (human)` : row.name) + coverageMark(row.coverage);
  let name = base;
  for (let n = 2; taken.has(name); n++) name = `${base} #${n}`;
  taken.add(name);
  return name;
}

export function labelChartData(
  rows: LeaderboardRow[],
  labelsByLevel: Record<string, string[]>,
  level: number | string,
  maxRows = 8,
): LabelChartData {
  const key = String(level);
  const scored = rows.filter((r) => r.per_label?.[key] && Object.keys(r.per_label[key]).length > 0);
  const chosen = rankRows(scored, key).slice(0, Math.max(0, maxRows));
  let labels = labelsByLevel[key] ?? [];
  if (!labels.length) {
    const seen = new Set<string>();
    for (const r of chosen) for (const l of Object.keys(r.per_label[key])) seen.add(l);
    labels = [...seen].sort();
  }
  const taken = new Set<string>();
  const datasets = chosen.map((row, i) => {
    const color = PALETTE[i % PALETTE.length];
    const scores = row.per_label[key];
    return {
      label: datasetName(row, taken),
      kind: row.kind,
      data: labels.map((l) => (typeof scores[l] === "number" && Number.isFinite(scores[l]) ? scores[l] : null)),
      backgroundColor: fill(color, row.kind),
      borderColor: color,
      partial: isPartial(row.coverage),
    };
  });
  return { labels, datasets, available: scored.length, partial: datasets.filter((d) => d.partial).length };
}
