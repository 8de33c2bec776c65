// When a paired test has too few units (texts, items) to ever reach significance, and why its
// bootstrap interval can still exclude 0: the note the results pages show beside such a test.

/** The smallest two-sided p of the paired randomisation test over `n` units: the observed
 *  signs are the most extreme of the 2^n sign flips, as is their mirror image, so p ≥ 2/2^n. */
export function smallestP(n: number): number {
  if (!Number.isFinite(n) || n < 1) return 1;
  return Math.min(1, 2 / 2 ** Math.floor(n));
}

/** The fewest units with which the test can reach `alpha` (6 at 0.05: 2/2^6 ≈ 0.031). */
export function unitsNeeded(alpha = 0.05): number {
  let n = 1;
  while (smallestP(n) > alpha) n += 1;
  return n;
}

/** "0.500", "0.031", "< 0.001": the smallest p, written as pages write p. */
function formatSmallest(p: number): string {
  return p < 0.001 ? "< 0.001" : p.toFixed(3);
}

/** The note for a paired test over `n` units that cannot reach `alpha`; null when it can. */
export function tooFewNote(n: number | null | undefined, unit = "texts", alpha = 0.05): string | null {
  if (n == null || !Number.isFinite(n) || n < 1 || smallestP(n) <= alpha) return null;
  const one = n === 1 ? unit.replace(/s$/, "") : unit;
  return (
    `With ${n} common ${one} the smallest possible p is ${formatSmallest(smallestP(n))}, so this test cannot reach ${alpha} (it needs at least ${unitsNeeded(alpha)} ${unit}). ` +
    `Its bootstrap interval only resamples these ${n}: when they all differ in the same direction the interval excludes 0, ` +
    `which describes these ${unit}, not evidence that the difference holds beyond them.`
  );
}
