import { describe, expect, it } from "vitest";
import { smallestP, tooFewNote, unitsNeeded } from "./smallSample";

describe("too few units for a paired test", () => {
  // the backend's scipy randomisation test gives these exact p for n units all in one direction
  it("knows the smallest p the randomisation test can give", () => {
    expect(smallestP(1)).toBe(1);
    expect(smallestP(2)).toBe(0.5);
    expect(smallestP(3)).toBe(0.25);
    expect(smallestP(5)).toBe(0.0625);
    expect(smallestP(6)).toBe(0.03125);
    expect(unitsNeeded(0.05)).toBe(6);
    expect(unitsNeeded(0.01)).toBe(8);
  });

  it("says why a two-text comparison cannot be significant and why its interval excludes 0", () => {
    const note = tooFewNote(2);
    expect(note).toContain("With 2 common texts the smallest possible p is 0.500");
    expect(note).toContain("cannot reach 0.05");
    expect(note).toContain("at least 6 texts");
    expect(note).toMatch(/interval excludes 0/);
    expect(tooFewNote(1, "items")).toContain("With 1 common item the smallest possible p is 1.000");
    expect(tooFewNote(5, "items")).toContain("0.063");
  });

  it("says nothing when the test can reach the threshold", () => {
    expect(tooFewNote(6)).toBeNull();
    expect(tooFewNote(200)).toBeNull();
    expect(tooFewNote(7, "texts", 0.01)).not.toBeNull();
    expect(tooFewNote(null)).toBeNull();
    expect(tooFewNote(0)).toBeNull();
  });
});
