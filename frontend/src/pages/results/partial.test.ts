import { describe, expect, it } from "vitest";
import { figureChart, figureTable, partialCoverage } from "./figures";
import { bestPerColumn, buildColumns, isBest } from "./table";
import type { Figure, ItemLeaderboard, ItemRow } from "../../types";

const row = (key: string, accuracy: number, items: number, of = 6): ItemRow => ({
  kind: "imported",
  key,
  name: key,
  model: key,
  backend: "imported",
  variant: null,
  variant_label: "imported",
  tasks: { answer: { value: accuracy, metric: "accuracy" } },
  skills: { answer: accuracy },
  overall: accuracy,
  profile: "definition",
  group: items === of ? 1 : 2,
  rank: 1,
  coverage: { items, of, complete: items >= of },
});

const board = (rows: ItemRow[]): ItemLeaderboard => ({
  project: { id: 1, name: "FLUB", kind: "items" },
  aggregate: "macro",
  tasks: [{ field: "answer", kind: "multiple-choice", title: "Answer", skill: "answer" }],
  skills: ["answer"],
  rows,
  comparisons: [],
  label_bias: [],
  unscored: [],
});

describe("a partial row on the results page", () => {
  it("is never the best of a column, even with the highest figure", () => {
    const rows = [row("complete", 0.5, 6), row("two items", 1.0, 2)];
    const best = bestPerColumn(rows, buildColumns(board(rows)));
    expect(best["task:answer"]).toBe(0.5);
    expect(best.overall).toBe(0.5);
    expect(isBest(1.0, best["task:answer"])).toBe(false);
    expect(bestPerColumn([row("two items", 1.0, 2)], buildColumns(board([row("two items", 1.0, 2)])))["task:answer"]).toBeNull();
  });

  it("is charted with its coverage in its name", () => {
    const rows = [row("complete", 0.5, 6), row("two items", 1.0, 2)];
    const figure: Figure = {
      field: "answer",
      metric: "accuracy",
      kind: "scalar",
      scale: "unit",
      labels: [],
      rows: rows.map((r) => ({ row: r.key, name: r.name, kind: r.kind, variant: "imported", profile: "definition", value: r.overall })),
    };
    const partial = partialCoverage(rows);
    expect(Object.keys(partial)).toEqual(["two items"]);
    const chart = figureChart(figureTable(figure, ["definition"], partial));
    expect(chart.labels).toEqual(["complete · imported", "two items · imported (2/6 items)"]);
    const perLabel: Figure = { ...figure, kind: "per-label", labels: ["1"], rows: figure.rows.map((r) => ({ ...r, value: undefined, values: { "1": 0.5 } })) };
    expect(figureChart(figureTable(perLabel, ["definition"], partial)).datasets.map((d) => d.label)).toEqual(["complete · imported", "two items · imported (2/6 items)"]);
  });
});
