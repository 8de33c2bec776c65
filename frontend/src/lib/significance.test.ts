import { describe, expect, it } from "vitest";
import { DASH } from "./format";
import {
  type ComparableRow,
  describeComparison,
  explainComparison,
  formatCoverage,
  formatDifference,
  formatP,
  groupRows,
} from "./significance";
import type { PairedComparison } from "../types";

const test: PairedComparison = {
  kind: "run",
  id: 2,
  name: "weak",
  texts: 20,
  a: 0.9,
  b: 0.4,
  difference: 0.5,
  ci_low: 0.25,
  ci_high: 0.75,
  p_value: 0.0004,
  significant: true,
};

function row(name: string, group: number, rank: number | null, texts: number, of = 20): ComparableRow & { name: string } {
  return { name, group, rank, coverage: { texts, of }, next: null, versus: null };
}

describe("paired comparisons", () => {
  it("writes p-values, signed differences and intervals", () => {
    expect(formatP(0.0004)).toBe("p < 0.001");
    expect(formatP(0.0421)).toBe("p = 0.042");
    expect(formatP(null)).toBe(DASH);
    expect(formatDifference(0.5)).toBe("+0.50");
    expect(formatDifference(-0.081)).toBe("−0.08");
    expect(formatDifference(0.001)).toBe("0.00");
    expect(formatDifference(null)).toBe(DASH);
    expect(describeComparison(test)).toBe("+0.50 [+0.25, +0.75] · p < 0.001");
    expect(describeComparison({ ...test, difference: -0.1, ci_low: -0.3, ci_high: 0.05, p_value: 0.31 })).toBe("−0.10 [−0.30, +0.05] · p = 0.310");
    expect(describeComparison(null)).toBe(DASH);
  });

  it("explains the verdict at 0.05", () => {
    expect(explainComparison(test)).toContain("on 20 common texts");
    expect(explainComparison(test)).toContain("significantly different (p < 0.05)");
    expect(explainComparison({ ...test, significant: false, p_value: 0.5 }, "items")).toContain("20 common items");
    expect(explainComparison({ ...test, significant: false, p_value: 0.5 })).toContain("not significantly different");
    expect(explainComparison(null)).toBe("");
  });

  it("splits rows into the groups ranked against each other", () => {
    const rows = [row("strong", 0, 1, 20), row("weak", 0, 2, 20), row("human", 1, 1, 5), row("tiny", 2, 1, 2), row("level-1 run", 3, null, 20)];
    const groups = groupRows(rows);
    expect(groups.map((g) => g.rows.map((r) => r.name))).toEqual([["strong", "weak"], ["human"], ["tiny"], ["level-1 run"]]);
    expect(groups.map((g) => g.title)).toEqual([
      "Scored on all 20 texts",
      "Scored on 5 of 20 texts: ranked apart",
      "Scored on 2 of 20 texts: ranked apart",
      "Not ranked: no score at the ranking level",
    ]);
    expect(groupRows([])).toEqual([]);
    expect(groupRows([row("a", 0, 1, 3, 3)], "items")[0].title).toBe("Scored on all 3 items");
  });

  it("writes coverage", () => {
    expect(formatCoverage({ texts: 2, of: 20 })).toBe("2/20");
    expect(formatCoverage({ texts: 20, of: 20 })).toBe("20");
    expect(formatCoverage(null)).toBe(DASH);
  });
});
