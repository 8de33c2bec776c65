// A run's ETA counted down between the server's estimates: the server re-estimates after
// every batch (its figure stays the same until the next one); the page counts down from
// the last estimate and the moment it first saw it.

export interface EtaAnchor {
  /** What the estimate is of: the run's status, phase and requests done. */
  key: string;
  eta: number | null;
  /** When the estimate was first seen (ms since the epoch). */
  at: number;
}

export const etaKey = (run: { status: string; done: number; phase?: string | null }) => `${run.status}|${run.phase ?? ""}|${run.done}`;

/** The anchor after a poll: the same one while nothing moved and the estimate is the same
 * (the countdown goes on), a new one when a batch ended, the phase changed or the server's
 * estimate changed (it moves by itself while the model loads). */
export function nextAnchor(previous: EtaAnchor | null, key: string, eta: number | null, now: number): EtaAnchor {
  if (previous && previous.key === key && previous.eta === eta) return previous;
  return { key, eta, at: now };
}

/** The seconds left at `now`: the anchor's estimate less the time since, never below 0. */
export function countdown(anchor: EtaAnchor | null, now: number): number | null {
  if (!anchor || anchor.eta == null || !Number.isFinite(anchor.eta)) return null;
  return Math.max(anchor.eta - (now - anchor.at) / 1000, 0);
}
