// The suggestions admin page's data (the API's shapes) and its pure helpers: which runs can
// be offered, the service's refusals by run, the outcome of a creation, rates and times.

import { DASH, formatDuration } from "../../../lib/format";
import type { Run } from "../../../types";

/** The base URL of a project's suggestions API (settings/, report/, POST to create). */
export const suggestionsUrl = (projectId: number) => `/api/evaluation/projects/${projectId}/suggestions`;

export type QueueOrdering = "position" | "disagreement";

/** GET|PUT /api/evaluation/projects/{id}/suggestions/settings/ */
export interface SuggestionSettings {
  assisted: boolean;
  ordering: QueueOrdering;
}

export const ORDERING_OPTIONS: { value: QueueOrdering; label: string }[] = [
  { value: "position", label: "Project order" },
  { value: "disagreement", label: "Documents where runs disagree first" },
];

/** One run's line of POST /api/evaluation/projects/{id}/suggestions/ (201). */
export interface CreatedRun {
  run: number;
  name: string;
  created: number;
  existing: number;
  no_fallacy: number;
  skipped: string[];
}

export interface Created {
  created: number;
  runs: CreatedRun[];
}

export interface ReportRow {
  run: number;
  run_name: string;
  label: string;
  suggestions: number;
  accepted: number;
  rejected: number;
  acceptance_rate: number | null;
}

export interface Timing {
  annotations: number;
  mean_seconds: number | null;
  median_seconds: number | null;
}

export interface RunTiming extends Timing {
  run: number;
  run_name: string;
}

/** GET /api/evaluation/projects/{id}/suggestions/report/ */
export interface SuggestionReport {
  rows: ReportRow[];
  timing: {
    measure: string;
    with_suggestions: Timing;
    without_suggestions: Timing;
    runs: RunTiming[];
  };
}

/** The runs an admin may pick: the finished ones, by name; the rest are only counted. */
export function offeredRuns(runs: Run[]): { finished: Run[]; unfinished: number } {
  const finished = runs.filter((r) => r.status === "done").sort((a, b) => a.name.localeCompare(b.name) || a.id - b.id);
  return { finished, unfinished: runs.length - finished.length };
}

/** The messages of a refused creation (400: {runs: [...]}, {project: [...]}; 403/404:
 * {detail}), each one a line; a run's refusal names the run. */
export function refusals(status: number, data: unknown): string[] {
  if (data && typeof data === "object" && !Array.isArray(data)) {
    const out: string[] = [];
    for (const [key, value] of Object.entries(data as Record<string, unknown>)) {
      const messages = Array.isArray(value) ? value : [value];
      for (const m of messages) if (typeof m === "string") out.push(key === "runs" || key === "detail" || key === "non_field_errors" ? m : `${key}: ${m}`);
    }
    if (out.length) return out;
  }
  if (typeof data === "string" && data.trim() && !data.trimStart().startsWith("<")) return [data.trim()];
  return [`The server refused (${status}); nothing was created.`];
}

/** One line per run of a creation: "run-one: 2 new, 1 already there, 1 sentence with no fallacy". */
export function createdLines(created: Created): string[] {
  return created.runs.map((r) => {
    const parts = [`${r.created} new`];
    if (r.existing) parts.push(`${r.existing} already there`);
    if (r.no_fallacy) parts.push(`${r.no_fallacy} ${r.no_fallacy === 1 ? "sentence" : "sentences"} with no fallacy`);
    if (r.skipped.length) parts.push(`${r.skipped.length} skipped (${r.skipped.join("; ")})`);
    return `${r.name}: ${parts.join(", ")}`;
  });
}

/** 0.5 → "50%", 2/3 → "67%", null (nothing decided) → "—". */
export function formatRate(rate: number | null): string {
  return rate == null || !Number.isFinite(rate) ? DASH : `${Math.round(rate * 100)}%`;
}

/** "1 min 40 s (median 1 min 30 s)", or "—" with no annotation. */
export function formatTiming(t: Timing): string {
  if (!t.annotations || t.mean_seconds == null) return DASH;
  return `${formatDuration(t.mean_seconds)} (median ${formatDuration(t.median_seconds)})`;
}

/** The report's rows grouped by run, in the API's order (run name, then label). */
export function rowsByRun(rows: ReportRow[]): { run: number; name: string; rows: ReportRow[] }[] {
  const groups: { run: number; name: string; rows: ReportRow[] }[] = [];
  for (const row of rows) {
    const last = groups[groups.length - 1];
    if (last && last.run === row.run) last.rows.push(row);
    else groups.push({ run: row.run, name: row.run_name, rows: [row] });
  }
  return groups;
}
