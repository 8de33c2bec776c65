// The item leaderboard's JSON (evaluation/item_leaderboard.py).

export type Mark = "up" | "down" | "same";

export interface ItemVariant {
  name: string;
  kind: string;
  shots: number;
}

export interface TaskCell {
  value: number | null;
  metric: string | null;
  run?: number;
  run_name?: string;
  runs?: number;
  items?: number | null;
  scored?: number | null;
  unparseable?: number | null;
  /** Free-text fields: the mean judge score of the judge runs judging this run. */
  judge?: { mean: number; runs: number[] } | null;
}

export interface ItemRow {
  /** "imported": a run of published outputs (no prompt variant). */
  kind: "model" | "imported" | "human";
  key: string;
  id?: number;
  name: string;
  model: string | null;
  backend: string | null;
  variant: ItemVariant | null;
  variant_label: string;
  tasks: Record<string, TaskCell>;
  skills: Record<string, number | null>;
  overall: number | null;
  note?: string;
}

export interface Delta {
  base: number;
  value: number;
  delta: number;
  mark: Mark;
}

export interface Comparison {
  comparison: "cot-vs-direct" | "few-shot-vs-zero-shot";
  model: string | null;
  backend: string | null;
  row: string;
  baseline_row: string;
  variant: string;
  variant_name: string;
  baseline: string;
  tasks: Record<string, Delta>;
  overall: Delta | null;
}

export interface BiasRow {
  row: string;
  name: string;
  kind: ItemRow["kind"];
  variant: string;
  run?: number | null;
  predicted: Record<string, number>;
  gold: Record<string, number>;
}

export interface LabelBias {
  field: string;
  kind: string;
  labels: string[];
  gold: Record<string, number>;
  rows: BiasRow[];
}

export interface ItemTaskColumn {
  field: string;
  kind: string;
  title: string;
  skill: string;
}

export interface ItemLeaderboard {
  project: { id: number; name: string; kind: string };
  aggregate: "macro" | "geometric";
  tasks: ItemTaskColumn[];
  skills: string[];
  rows: ItemRow[];
  comparisons: Comparison[];
  label_bias: LabelBias[];
  unscored: { id: number; name: string; field: string }[];
}
