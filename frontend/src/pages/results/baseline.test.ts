import { describe, expect, it } from "vitest";
import { bestPerColumn, boardNames, buildColumns, columnNames, columnTitle, countsForBest, rowBadge } from "./table";
import type { ItemLeaderboard, ItemRow } from "../../types";

const row = (key: string, s: number, extra: Partial<ItemRow> = {}): ItemRow => ({
  kind: "model",
  key,
  name: key,
  model: key,
  backend: "vllm",
  variant: { name: "zero-shot", kind: "zero-shot", shots: 0 },
  variant_label: "zero-shot",
  tasks: { types: { value: s, metric: "mean_s" } },
  skills: {},
  overall: null,
  ...extra,
});

// SmartyPat-shaped: one ranked task scored by mean S (not on the 0-1 scale), so no overall.
const board = (rows: ItemRow[]): ItemLeaderboard => ({
  project: { id: 1, name: "SmartyPat", kind: "items" },
  aggregate: "macro",
  tasks: [{ field: "types", kind: "ranked", title: "Fallacy types", skill: "types" }],
  skills: ["types"],
  rows,
  comparisons: [],
  label_bias: [],
  unscored: [],
});

describe("baselines in the results table", () => {
  const model = row("gpt", 0.1);
  const silent = row("silent", 0.4, { backend: "silent", baseline: true });

  it("tags a baseline as a baseline and never makes it a column's best", () => {
    expect(rowBadge(silent)).toMatchObject({ text: "baseline" });
    expect(rowBadge(model)).toMatchObject({ text: "model", className: "kind-run" });
    expect(rowBadge(row("pub", 0.2, { kind: "imported" }))).toMatchObject({ text: "imported" });
    expect(rowBadge(row("ann", 0.2, { kind: "human" }))).toMatchObject({ text: "human", className: "kind-annotator" });
    expect(countsForBest(silent)).toBe(false);
    const columns = buildColumns(board([model, silent]));
    expect(bestPerColumn([model, silent], columns)).toEqual({ "task:types": 0.1 });
  });
});

describe("no column that is always empty", () => {
  it("leaves out Overall when no row has one, keeps it when one does", () => {
    expect(buildColumns(board([row("a", 0.1), row("b", 0.2)])).map((c) => c.id)).toEqual(["task:types"]);
    expect(buildColumns(board([row("a", 0.1, { overall: 0.5 }), row("b", 0.2)])).map((c) => c.id)).toEqual(["task:types", "overall"]);
  });
});

describe("column help", () => {
  it("explains each column's metric in its title and legend", () => {
    const columns = buildColumns(board([row("a", 0.1, { overall: 0.5 })]));
    expect(columnTitle(columns[0])).toMatch(/^Fallacy types · mean S: .*SmartyPat/);
    expect(columnTitle(columns[1])).toMatch(/^Overall \(macro\): /);
    expect(columnNames(columns)).toEqual(["mean_s", "Overall (macro)"]);
  });

  it("names every profile's primary metric for the legend", () => {
    const rows = [row("a", 0.1, { profile: "definition" }), row("a", 2.5, { profile: "authors-smartypat", tasks: { types: { value: 2.5, metric: "sum_s" } } })];
    expect(new Set(boardNames(board(rows)))).toEqual(new Set(["mean_s", "sum_s"]));
  });
});
