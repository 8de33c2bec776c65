// What a launch would send and how long it should take, shown before launching: the query
// of GET /api/evaluation/launch-preview/ built from the form, and its answer in words.

import type { SuggestedModel } from "../types";
import { formatDuration } from "./format";
import { type LaunchForm, parseNumber } from "./launch";

export interface ModelEstimate {
  backend: string;
  model: string;
  seconds: number | null;
  per_request_seconds: number | null;
  load_seconds: number | null;
  measured_by_run: number | null;
}

export interface LaunchPreview {
  texts: number;
  requests: number;
  estimates: ModelEstimate[];
}

export const NO_ESTIMATE = "no estimate yet: first run of this model on this machine";
/** A model never run here with typical figures (the server's ``preview.TYPICAL``). */
export const TYPICAL = "typical of a 2-core CPU, not measured on this machine yet";

/** The chosen models as BACKEND:MODEL, suggested ones first (as the launch sends them). */
export function chosenModels(form: LaunchForm, suggested: SuggestedModel[]): string[] {
  const picked = [...form.suggested].sort((a, b) => a - b).flatMap((i) => (suggested[i] ? [`${suggested[i].backend}:${suggested[i].model}`] : []));
  return [...picked, ...form.custom.map((row) => `${row.backend}:${row.model.trim()}`)];
}

/** The preview's query string, or null when the form names no gold version or a bad limit. */
export function previewQuery(form: LaunchForm, suggested: SuggestedModel[]): string | null {
  if (form.goldStandard == null || form.field) return null;
  const limit = parseNumber(form.limit, true);
  if (limit.error || (limit.value != null && limit.value < 1)) return null;
  const q = new URLSearchParams({ gold_standard: String(form.goldStandard) });
  if (limit.value != null) q.set("limit", String(limit.value));
  for (const m of chosenModels(form, suggested)) q.append("model", m);
  return `?${q.toString()}`;
}

const plural = (n: number, one: string, many: string) => `${n} ${n === 1 ? one : many}`;

/** "6 requests per run (2 texts, one request per sentence)", with the number of runs. */
export function requestsText(preview: LaunchPreview, variants: number): string {
  const each = `${plural(preview.requests, "request", "requests")} (${plural(preview.texts, "text", "texts")}, one request per sentence)`;
  if (variants <= 1) return `Sends ${each} per model.`;
  return `Sends ${each} per model and variant: ${preview.requests * variants} per model.`;
}

/** One line per model: its estimated time for the whole launch (all its variants), or why none. */
export function estimateText(estimate: ModelEstimate, label: string, variants: number): string {
  if (estimate.seconds == null) return `${label}: ${NO_ESTIMATE}.`;
  const per = estimate.per_request_seconds ?? 0;
  const load = estimate.load_seconds ?? 0;
  // each variant is its own run: its own load and requests
  const total = Math.max(variants, 1) * estimate.seconds;
  const basis = load > 0 ? `${per.toFixed(2)} s a request and a ${formatDuration(load)} start-up and model load` : `${per.toFixed(2)} s a request`;
  if (estimate.measured_by_run == null) return `${label}: about ${formatDuration(total)} (${TYPICAL}: ${basis}).`;
  return `${label}: about ${formatDuration(total)} on this machine (measured: ${basis}).`;
}
