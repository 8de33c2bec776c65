// Kept apart from format.ts: the progress bar is in the main bundle, the rest of the
// evaluation formatting only in the evaluation pages' chunk.

/** Whole percent of done/total, clamped to 0–100 (0 when the total is unknown). */
export function percent(done: number, total: number): number {
  if (!total || total <= 0 || !Number.isFinite(done)) return 0;
  return Math.max(0, Math.min(100, Math.round((100 * done) / total)));
}
