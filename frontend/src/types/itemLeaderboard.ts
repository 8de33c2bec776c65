// The item leaderboard's JSON (evaluation/items/leaderboard/).

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
  /** The paired test against the next row of the same group (a mean or a pooled F1). */
  vs_next?: NeighbourTest;
}

export interface NeighbourTest {
  row: string;
  common_items: number;
  significant: boolean;
  alpha: number;
  test: PairTest | null;
}

export interface Coverage {
  items: number;
  of: number;
  complete: boolean;
}

export interface ItemRow {
  kind: "model" | "imported" | "human";
  key: string;
  id?: number;
  name: string;
  model: string | null;
  backend: string | null;
  /** A baseline backend's run (random labels, silent): a reference point, not a model. */
  baseline?: boolean;
  variant: ItemVariant | null;
  variant_label: string;
  tasks: Record<string, TaskCell>;
  skills: Record<string, number | null>;
  overall: number | null;
  note?: string;
  /** The scoring profile of every figure of the row. */
  profile?: string;
  coverage?: Coverage;
  /** Rows scored on the same items form a group (1: the widest), ranked within it. */
  group?: number;
  rank?: number;
}

export interface Delta {
  base: number;
  value: number;
  delta: number;
  mark: Mark;
}

export interface Comparison {
  comparison: "cot-vs-direct" | "few-shot-vs-zero-shot";
  /** The scoring profile of both rows compared. */
  profile?: string;
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
  profile?: string;
  run?: number | null;
  /** The items the row was scored on (its answer key's; a ranked item has several gold labels). */
  items?: number | null;
  predicted: Record<string, number>;
  gold: Record<string, number>;
}

export interface LabelBias {
  field: string;
  kind: string;
  labels: string[];
  /** Labels that are not the field's own (raw pieces of answers): left out where a row has no count. */
  spellings?: string[];
  gold: Record<string, number>;
  rows: BiasRow[];
}

export interface ItemTaskColumn {
  field: string;
  kind: string;
  title: string;
  skill: string;
}

export interface FigureRow {
  row: string;
  name: string;
  kind: ItemRow["kind"];
  variant: string;
  profile: string;
  /** A single figure. */
  value?: number | null;
  /** A per-label figure. */
  values?: Record<string, number>;
}

/** One figure of the reports: a single number per row ("scalar") or one per label. */
export interface Figure {
  field: string;
  metric: string;
  kind: "scalar" | "per-label";
  /** "unit": on the 0-1 scale; "score": another scale (the categorisation score S). */
  scale: "unit" | "score";
  labels: string[];
  rows: FigureRow[];
}

export interface OverallBasis {
  method: string;
  tasks: string[];
  excluded: { field: string; metric: string | null; reason: string }[];
  text: string;
}

export interface ItemLeaderboard {
  project: { id: number; name: string; kind: string };
  aggregate: "macro" | "geometric";
  profiles?: string[];
  profile?: string | null;
  subset?: { name: string; items: number } | null;
  subsets?: { name: string; items: number }[];
  /** Items with an answer key on the board (the project's, or the subset's). */
  items?: number;
  overall_basis?: OverallBasis;
  figures?: Figure[];
  tasks: ItemTaskColumn[];
  skills: string[];
  rows: ItemRow[];
  comparisons: Comparison[];
  label_bias: LabelBias[];
  unscored: { id: number; name: string; field: string }[];
  /** With `?compare=A,B`: the paired test between the two rows. */
  compare?: ItemPair | null;
}

/** A paired test of A minus B (``significance.PairedTest.to_dict``). */
export interface PairTest {
  statistic: string;
  units: number;
  a: number;
  b: number;
  difference: number;
  ci: [number, number];
  p_value: number;
  confidence: number;
}

/** One profile and task of an item board's `compare`. */
export interface ItemPairEntry {
  profile: string;
  field: string;
  metric: string | null;
  a: number | null;
  b: number | null;
  common_items: number;
  significant: boolean;
  test: PairTest | null;
  /** Why there is no test. */
  reason: string | null;
}

/** `?compare=A,B` on the item results: A minus B per profile and task. */
export interface ItemPair {
  a: { key: string; name: string };
  b: { key: string; name: string };
  alpha: number;
  tests: ItemPairEntry[];
}

/** `?compare=A,B` on the leaderboard of a gold version: A minus B over common texts. */
export interface SpanPair {
  a: { key: string; name: string };
  b: { key: string; name: string };
  texts: number;
  test: PairTest | null;
  significant: boolean;
  alpha: number;
  reason: string | null;
}
