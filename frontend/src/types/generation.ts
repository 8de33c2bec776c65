// Shapes of /api/evaluation/generation-* and prolog-rules/ (evaluation/api_generation.py, api_prolog.py).

export interface ReviewCounts {
  pending: number;
  accepted: number;
  rejected: number;
}

export interface GenerationJob {
  id: number;
  project: number;
  project_name: string;
  type: string;
  rule: number;
  rule_version: number;
  method: "prolog" | "direct";
  backend: string;
  model_name: string;
  n: number;
  status: "queued" | "running" | "done" | "failed";
  stage: string | null;
  error: string;
  proposed: number;
  valid: number;
  rejected: number;
  rejections: Record<string, number>;
  satisfying: number;
  items_kept: number;
  requests_sent: number;
  from_cache: number;
  review: ReviewCounts;
  created_by: string | null;
  created_at: string;
  started_at: string | null;
  finished_at: string | null;
  report?: Record<string, unknown>;
  backend_settings?: Record<string, unknown>;
}

export interface GeneratedItem {
  id: number;
  job: number;
  position: number;
  document: number;
  text: string;
  edited_text: string;
  bindings: Record<string, string>;
  facts: string[];
  scores: (number | null)[];
  review: "pending" | "accepted" | "rejected";
  reviewed_by: string | null;
  reviewed_at: string | null;
}

export interface Release {
  id: number;
  project: number;
  version: number;
  gold_project: number | null;
  gold_project_name: string | null;
  items: number;
  note: string;
  created_by: string | null;
  created_at: string;
}

export interface ReportRow {
  type: string;
  method: string;
  jobs: number;
  models: string[];
  facts: { proposed: number | null; valid: number | null; rejected: number | null; by_reason: Record<string, number> };
  satisfying: number | null;
  items: number;
  judge: { judgements: number; unparseable: number; mean: number | null; share: Record<string, number> };
  review: { pending: number; accepted: number; edited: number; rejected: number; acceptance_rate: number | null };
}

export interface PrologRule {
  id: number;
  type: string;
  version: number;
  source: string;
  builtin: boolean;
  /** The owning project; null: global (the shipped files, edited by superusers only). */
  project: number | null;
  created_by: string | null;
  created_at: string;
}
