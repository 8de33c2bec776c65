import { describe, expect, it } from "vitest";
import { biasCaption, biasChartData } from "./table";
import type { LabelBias } from "../../types";

// A ranked field: the definition row counts the field's labels; the authors' row counts raw
// pieces as written ("1. false premise"), which are spellings, not labels of the field.
const bias: LabelBias = {
  field: "types",
  kind: "ranked",
  labels: ["false cause", "false premise", "equivocation", "no fallacy", "1. false premise", "false_cause > equivocation", " equivocation"],
  spellings: ["1. false premise", "false_cause > equivocation", " equivocation"],
  gold: { "false cause": 2, "false premise": 1, equivocation: 1 },
  rows: [
    { row: "a", name: "a", kind: "model", variant: "zero-shot", profile: "definition", items: 3, predicted: { "false cause": 1, "no fallacy": 2 }, gold: { "false cause": 2, "false premise": 1, equivocation: 1 } },
    { row: "a", name: "a", kind: "model", variant: "zero-shot", profile: "authors-smartypat", items: 3, predicted: { "1. false premise": 1, " equivocation": 1 }, gold: { "false cause": 2, "false premise": 1, equivocation: 1 } },
  ],
};

describe("the label-bias panel", () => {
  it("leaves out spellings a row never gave nor has in its key, and counts them", () => {
    const definition = biasChartData(bias, "definition:a");
    expect(definition?.labels).toEqual(["false cause", "false premise", "equivocation", "no fallacy"]);
    expect(definition?.predicted).toEqual([1, 0, 0, 2]);
    expect(definition?.gold).toEqual([2, 1, 1, 0]);
    expect(definition?.unused).toBe(3);
    const authors = biasChartData(bias, "authors-smartypat:a");
    expect(authors?.labels).toEqual(["false cause", "false premise", "equivocation", "no fallacy", "1. false premise", " equivocation"]);
    expect(authors?.unused).toBe(1);
  });

  it("keeps the field's own labels at zero (a type never predicted is bias too)", () => {
    const data = biasChartData(bias, "definition:a");
    expect(data?.labels).toContain("no fallacy");
    expect(data?.labels).toContain("equivocation");
  });

  it("says how many items the key has, apart from how many gold labels", () => {
    const data = biasChartData(bias, "definition:a");
    expect(data?.goldTotal).toBe(4);
    expect(data?.items).toBe(3);
    expect(biasCaption(data!, "a", "zero-shot", "types")).toBe("How often a (zero-shot) gave each answer on types, against the answer key of the same 3 items (4 gold labels).");
    // 502 fallacious items with 1122 gold labels: never "the same 1122 items"
    const big = { ...data!, goldTotal: 1122, items: 502 };
    expect(biasCaption(big, "m", "imported", "types")).toContain("the same 502 items (1122 gold labels)");
    // one gold answer per item: the item count alone
    expect(biasCaption({ ...data!, goldTotal: 200, items: 200 }, "m", "zero-shot", "answer")).toContain("the same 200 items.");
    // a board without item counts: the labels, not items
    const { items: _none, ...unknown } = data!;
    expect(biasCaption(unknown, "m", "zero-shot", "types")).toContain("answer key of 4 gold labels.");
  });
});
