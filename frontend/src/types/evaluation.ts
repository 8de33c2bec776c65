// Shapes of the evaluation-jobs REST API (/api/evaluation/…: runs, variants, leaderboard).

import type { SpanPair } from "./itemLeaderboard";

export type RunStatus = "created" | "queued" | "running" | "scoring" | "done" | "failed" | "cancelled";

export interface VariantRef {
  id: number;
  name: string;
  version: number;
  kind: string;
}

export interface Variant extends VariantRef {
  task: string;
  parser: string;
  shots: number;
  seed: number;
  decoding: Record<string, unknown>;
  /** Item tasks: an unparseable output counts as "wrong" or as a seeded "random" answer. */
  unparseable?: string;
  description: string;
  builtin: boolean;
  /** The owning project; null: global (the built-ins, edited by superusers only). */
  project: number | null;
  template: string;
  created_at: string;
}

/** Body of POST /api/evaluation/variants/ (a "copy and edit" makes a new version). */
export interface VariantInput {
  /** The project that owns the new version (required unless a superuser saves a global one). */
  project: number;
  task: string;
  name: string;
  kind: string;
  template: string;
  parser: string;
  shots: number;
  seed: number;
  decoding: Record<string, unknown>;
  unparseable?: string;
  description: string;
}

export interface Run {
  id: number;
  name: string;
  project: number;
  gold_standard: number | null;
  gold_version: number | null;
  backend: string;
  /** What the backend loads (a path, a hub id, an API name): the configuration panel only. */
  model_name: string;
  /** The model's readable name (from its config, GGUF file or folder name): shown as the model. */
  model_label: string;
  task: string;
  prompt_variant: VariantRef | null;
  level: number;
  limit: number | null;
  shards: number;
  status: RunStatus;
  error: string;
  total: number;
  done: number;
  generated: number;
  generation_seconds: number | null;
  /** Requests done per second since started_at; null before it started. */
  throughput: number | null;
  /** Seconds left while queued or running: requests left x seconds per request (an earlier run's before the
   * first batch), + the rest of an earlier run's start-up and model load until the model is loaded. */
  eta_seconds: number | null;
  /** While running: the runner loads the model, or generates; null before either (queued, the runner starting). */
  phase: "loading" | "generating" | null;
  imported: boolean;
  created_by: string | null;
  created_at: string;
  started_at: string | null;
  finished_at: string | null;
  can_manage: boolean;
}

export interface RunShard {
  index: number;
  status: string;
  attempts: number;
  error: string;
  worker: string;
  started_at: string | null;
  finished_at: string | null;
}

export interface PRF {
  precision: number;
  recall: number;
  f1: number;
}

export interface RunScore {
  profile: string;
  parser: string;
  levels: Record<string, PRF | null>;
}

/** GET /runs/{id}/: a Run whose `shards` is the list of shard states (the count elsewhere). */
export interface RunDetail extends Omit<Run, "shards"> {
  shards: RunShard[];
  config: unknown;
  environment: unknown;
  scores: RunScore[];
}

export interface RunRequest {
  id: number;
  document: number;
  document_name: string;
  unit_index: number;
  unit_text: string;
  prompt: string;
  raw_output: string;
  answer: string;
  parsed_labels: string[] | null;
  unparseable: boolean;
  from_cache: boolean;
  seconds: number | null;
}

export interface GoldOption {
  id: number;
  version: number;
  status: string;
  documents: number;
}

export interface ModelChoice {
  backend: string;
  model: string;
  settings: Record<string, unknown>;
}

export interface SuggestedModel extends ModelChoice {
  label: string;
}

/** An operator's model-server credential: chosen by name, never a key or a variable. */
export interface CredentialOption {
  name: string;
  /** The only servers its key is sent to (a run without base_url uses the first). */
  base_urls: string[];
}

export interface DecodingParams {
  max_new_tokens?: number;
  temperature?: number;
  top_p?: number;
  seed?: number;
}

/** A question of an item project's form that runs can answer. */
export interface FormFieldOption {
  name: string;
  kind: string;
  title: string;
}

/** A model the operator registered (MODEL_REGISTRY): launched by name, its path never shown. */
export interface RegisteredModel {
  name: string;
  backends: string[];
}

export interface LaunchOptions {
  can_launch: boolean;
  /** "spans" (score against a gold version) or "items" (runs answer a form field). */
  kind?: string;
  fields?: FormFieldOption[];
  gold_standards: GoldOption[];
  backends: string[];
  suggested_models: SuggestedModel[];
  /** The local models a project admin may launch, by name (superusers may also give a path). */
  registered_models?: RegisteredModel[];
  /** Hub ids a project admin may launch without registering them (fnmatch patterns). */
  hub_allowed?: string[];
  /** The operator's credentials (MODEL_CREDENTIALS) this project may use, by name. */
  credentials?: CredentialOption[];
  variants: Variant[];
  levels: number[];
  defaults: { level: number; limit: number | null; shards: number | null; params: DecodingParams };
}

export interface LaunchBody {
  project: number;
  gold_standard: number | null;
  models: ModelChoice[];
  prompt_variants: number[];
  level: number;
  limit: number | null;
  shards: number | null;
  params: DecodingParams;
  name?: string;
  /** Item projects: the form field the runs answer (then no gold version). */
  field?: string;
}

export interface LaunchResponse {
  runs: Run[];
}

export type Profile = "paper" | "mafalda-2024";

export interface LeaderboardScore extends PRF {
  f1_low: number | null;
  f1_high: number | null;
}

export interface LeaderboardRow {
  kind: "run" | "annotator";
  id: number;
  /** `run:ID` or `annotator:ID`: how `?compare=A,B` names the row. */
  key?: string;
  name: string;
  model: string | null;
  backend: string | null;
  variant: string | null;
  /** A run imported from published outputs or a harness's log (not generated here). */
  imported?: boolean;
  /** A baseline backend's run (random labels, silent): a reference point, not a model. */
  baseline?: boolean;
  /** The harness whose log the run was imported from, with its version ("inspect_ai 0.3.285"). */
  harness?: string | null;
  status: string | null;
  levels: Record<string, LeaderboardScore | null>;
  unparseable_share: number | null;
  requests: number | null;
  generated: number | null;
  seconds: number | null;
  documents: number;
  per_label: Record<string, Record<string, number>>;
  note?: string;
  /** Rows are ranked only within their group: rows scored on the same texts. */
  group: number;
  rank: number | null;
  coverage: TextCoverage;
  /** The paired test against the row ranked just below, in the same group. */
  next: PairedComparison | null;
  /** A later group's first row: the paired test against the first group's top row. */
  versus: PairedComparison | null;
}

/** The paired test of a row against another one, on the units both were scored on. */
export interface PairedComparison {
  kind: string;
  id: number;
  name: string;
  /** Common units (texts or items) the test compares. */
  texts: number;
  a: number;
  b: number;
  difference: number;
  ci_low: number;
  ci_high: number;
  p_value: number;
  significant: boolean;
}

/** How many of the gold's units a row was scored on. */
export interface TextCoverage {
  texts: number;
  of: number;
}

export interface SignificanceSettings {
  level: number;
  statistic: string;
  interval: string;
  test: string;
  alpha: number;
  resamples: number;
  permutations: number;
  seed: number;
}

export interface Leaderboard {
  gold_standard: { id: number; version: number; project: number; project_name: string; documents: number };
  profile: Profile;
  average: string;
  levels: number[];
  rows: LeaderboardRow[];
  labels: Record<string, string[]>;
  note?: string;
  significance?: SignificanceSettings;
  /** With `?compare=A,B`: the paired test between the two rows. */
  compare?: SpanPair | null;
}
