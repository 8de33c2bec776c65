import { describe, expect, it } from "vitest";
import { pairLines, pairOptions, pairText } from "./pairs";
import type { ItemPair, SpanPair } from "../types";

const test = { statistic: "mean", units: 6, a: 0.5, b: 0.3, difference: 0.2, ci: [0.05, 0.35] as [number, number], p_value: 0.031, confidence: 0.95 };

describe("pairs", () => {
  it("offers each row key once, with its variant", () => {
    const rows = [
      { key: "vllm|A|zero-shot", name: "A", variant_label: "zero-shot", profile: "definition" },
      { key: "vllm|A|zero-shot", name: "A", variant_label: "zero-shot", profile: "authors-smartypat" },
      { key: "human|3", name: "ann", variant_label: "" },
    ];
    expect(pairOptions(rows)).toEqual([
      { key: "vllm|A|zero-shot", label: "A · zero-shot" },
      { key: "human|3", label: "ann" },
    ]);
  });

  it("gives one line per profile and task of an item pair, with its reason when untested", () => {
    const pair: ItemPair = {
      a: { key: "a", name: "A" },
      b: { key: "b", name: "B" },
      alpha: 0.05,
      tests: [
        { profile: "definition", field: "types", metric: "mean_s", a: 0.5, b: 0.3, common_items: 6, significant: true, test, reason: null },
        { profile: "definition", field: "kinds", metric: "macro_f1", a: 0.5, b: 0.4, common_items: 0, significant: false, test: null, reason: "macro_f1 has no per-item units" },
      ],
    };
    const lines = pairLines(pair);
    expect(lines.map((l) => l.where)).toEqual(["definition · types (mean_s)", "definition · kinds (macro_f1)"]);
    expect(pairText(lines[0], 0.05)).toBe("0.500 − 0.300 = +0.200, 95% CI [+0.050, +0.350], p = 0.031 over 6 (significant at 0.05)");
    expect(pairText(lines[1], 0.05)).toBe("no paired test (macro_f1 has no per-item units)");
  });

  it("gives the single line of a leaderboard pair", () => {
    const pair: SpanPair = { a: { key: "run:1", name: "x" }, b: { key: "annotator:2", name: "y" }, texts: 6, test: { ...test, difference: -0.2, ci: [-0.35, -0.05] }, significant: false, alpha: 0.05, reason: null };
    const [line] = pairLines(pair);
    expect(line.where).toBe("");
    expect(pairText(line, 0.05)).toContain("= -0.200, 95% CI [-0.350, -0.050]");
    expect(pairText(line, 0.05)).toContain("not significant at 0.05");
  });
});
