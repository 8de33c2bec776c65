// A run's ETA counted down between the server's estimates: the server's figure is of the
// moment it answers (it takes off the time since the last batch, or since the run started
// while the model is not loaded yet); the page counts down from the last estimate and the
// moment it saw it.

export interface EtaAnchor {
  /** What the estimate is of: the run's status, phase and requests done. */
  key: string;
  eta: number | null;
  /** When the estimate was first seen (ms since the epoch). */
  at: number;
}

export const etaKey = (run: { status: string; done: number; phase?: string | null }) => `${run.status}|${run.phase ?? ""}|${run.done}`;

/** The anchor after a render: the same one while nothing moved and the estimate is the same
 * (the countdown goes on), a new one when a batch ended, the phase changed or the server's
 * estimate changed (it counts down by itself between polls). `fresh`: the render is a new
 * answer of the server, whose figure is of now: taken even when it repeats the last one (the
 * server's estimate stands still when the work overruns it, and so does the page's). */
export function nextAnchor(previous: EtaAnchor | null, key: string, eta: number | null, now: number, fresh = false): EtaAnchor {
  if (previous && previous.key === key && previous.eta === eta && !fresh) return previous;
  return { key, eta, at: now };
}

/** The seconds left at `now`: the anchor's estimate less the time since, never below 0. */
export function countdown(anchor: EtaAnchor | null, now: number): number | null {
  if (!anchor || anchor.eta == null || !Number.isFinite(anchor.eta)) return null;
  return Math.max(anchor.eta - (now - anchor.at) / 1000, 0);
}

/** The seconds a run's progress shows at `now`: a running run's countdown from the anchor;
 * a queued run's estimate as the server gives it (of the run once started: it waits). */
export function shownEta(anchor: EtaAnchor | null, run: { status: string; eta_seconds?: number | null }, now: number): number | null {
  return run.status === "running" ? countdown(anchor, now) : (run.eta_seconds ?? null);
}
