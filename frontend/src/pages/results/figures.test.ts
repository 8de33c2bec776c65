import { describe, expect, it } from "vitest";
import { biasKey, boardProfiles, coverageText, figureChart, figureTable, groupStarts, manyProfiles, rowsOf, testText } from "./figures";
import { biasChartData } from "./table";
import type { BiasRow, Figure, ItemLeaderboard, ItemRow, NeighbourTest } from "../../types";

const row = (key: string, profile: string, group: number, kind: ItemRow["kind"] = "model"): ItemRow => ({
  kind,
  key,
  name: key,
  model: key,
  backend: "vllm",
  variant: null,
  variant_label: "zero-shot",
  tasks: {},
  skills: {},
  overall: null,
  profile,
  group,
  rank: 1,
  coverage: { items: group === 1 ? 6 : 2, of: 6, complete: group === 1 },
});

const board = (rows: ItemRow[], profiles?: string[]): ItemLeaderboard => ({
  project: { id: 1, name: "SmartyPat", kind: "items" },
  aggregate: "macro",
  profiles,
  tasks: [],
  skills: [],
  rows,
  comparisons: [],
  label_bias: [],
  unscored: [],
});

const entry = (r: string, profile: string, value: number | null, values?: Record<string, number>) => ({
  row: r,
  name: r,
  kind: "model" as const,
  variant: "zero-shot",
  profile,
  ...(values ? { values } : { value }),
});

describe("profiles and groups", () => {
  it("keeps the board's profile order and reads rows per profile", () => {
    const b = board([row("a", "definition", 1), row("a", "authors-smartypat", 1), row("b", "definition", 2)], ["definition", "authors-smartypat"]);
    expect(boardProfiles(b)).toEqual(["definition", "authors-smartypat"]);
    expect(rowsOf(b, "definition").map((r) => r.key)).toEqual(["a", "b"]);
    expect(rowsOf(b, "authors-smartypat").map((r) => r.key)).toEqual(["a"]);
    expect(boardProfiles(board([]))).toEqual(["definition"]);
  });

  it("starts a group where the rows' items change", () => {
    const rows = [row("a", "definition", 1), row("b", "definition", 1), row("c", "definition", 2)];
    expect([...groupStarts(rows)]).toEqual([2]);
    expect(coverageText(rows[2].coverage)).toBe("2/6 items (partial)");
    expect(coverageText(rows[0].coverage)).toBe("6/6 items");
  });

  it("describes a neighbour test with its interval and p", () => {
    const t: NeighbourTest = {
      row: "b",
      common_items: 6,
      significant: true,
      alpha: 0.05,
      test: { statistic: "f1", units: 6, a: 1, b: 0.8, difference: 0.2, ci: [0.05, 0.4], p_value: 0.03125, confidence: 0.95 },
    };
    expect(testText(t)).toBe(
      "significantly different from the next row at 0.05 (paired F1 over 6 items): difference 0.200, 95% CI [0.050, 0.400], p = 0.031",
    );
    expect(testText({ ...t, test: null, common_items: 1 })).toBe("no paired test (1 common items)");
    expect(testText(undefined)).toBeNull();
  });
});

describe("figure tables and charts", () => {
  it("puts the profiles of a single figure side by side", () => {
    const figure: Figure = {
      field: "types",
      metric: "sum_s",
      kind: "scalar",
      scale: "score",
      labels: [],
      rows: [entry("a", "definition", -1.5), entry("a", "authors-smartypat", -4.2), entry("b", "definition", 2)],
    };
    const table = figureTable(figure, ["definition", "authors-smartypat"]);
    expect(table.columns.map((c) => c.id)).toEqual(["definition", "authors-smartypat"]);
    expect(table.lines).toEqual([
      { id: "a", title: "a · zero-shot", values: [-1.5, -4.2] },
      { id: "b", title: "b · zero-shot", values: [2, null] },
    ]);
    expect(figureChart(table)).toEqual({
      labels: ["a · zero-shot", "b · zero-shot"],
      datasets: [
        { label: "definition", data: [-1.5, 2] },
        { label: "authors-smartypat", data: [-4.2, null] },
      ],
    });
  });

  it("puts labels down and rows across for a per-label figure", () => {
    const figure: Figure = {
      field: "types",
      metric: "per_type_accuracy",
      kind: "per-label",
      scale: "unit",
      labels: ["ad hominem", "false dilemma"],
      rows: [entry("a", "definition", null, { "ad hominem": 0.5 }), entry("a", "authors-smartypat", null, { "ad hominem": 1, "false dilemma": 0 })],
    };
    const table = figureTable(figure, ["definition", "authors-smartypat"]);
    expect(table.columns.map((c) => c.title)).toEqual(["a · zero-shot (definition)", "a · zero-shot (authors-smartypat)"]);
    expect(table.lines.map((l) => l.values)).toEqual([
      [0.5, 1],
      [null, 0],
    ]);
    const one = figureTable({ ...figure, rows: figure.rows.slice(0, 1) }, ["definition", "authors-smartypat"]);
    expect(one.columns.map((c) => c.title)).toEqual(["a · zero-shot"]);
  });

  it("tells label-bias rows of two profiles apart", () => {
    const rows: BiasRow[] = [
      { row: "a", name: "a", kind: "model", variant: "zero-shot", profile: "definition", predicted: { x: 2 }, gold: { x: 1 } },
      { row: "a", name: "a", kind: "model", variant: "zero-shot", profile: "authors-smartypat", predicted: { x: 1 }, gold: { x: 1 } },
    ];
    expect(manyProfiles(rows)).toBe(true);
    expect(rows.map((r) => biasKey(r, true))).toEqual(["definition:a", "authors-smartypat:a"]);
    expect(biasKey(rows[0], false)).toBe("a");
    const bias = { field: "types", kind: "ranked", labels: ["x"], gold: { x: 1 }, rows };
    expect(biasChartData(bias, "authors-smartypat:a")?.predicted).toEqual([1]);
  });
});
