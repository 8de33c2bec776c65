import { describe, expect, it } from "vitest";
import { bestPerColumn, biasChartData, buildColumns, cellValue, deltaText, formatDelta, isBest } from "./table";
import type { ItemLeaderboard, ItemRow } from "../../types";

const row = (key: string, kind: ItemRow["kind"], answer: number | null, type: number | null, overall: number | null, judge?: number): ItemRow => ({
  kind,
  key,
  name: key,
  model: kind === "model" ? key : null,
  backend: kind === "model" ? "vllm" : null,
  variant: kind === "model" ? { name: "zero-shot", kind: "zero-shot", shots: 0 } : null,
  variant_label: kind === "model" ? "zero-shot" : "human",
  tasks: {
    ...(answer != null ? { answer: { value: answer, metric: "accuracy" } } : {}),
    ...(type != null ? { type: { value: type, metric: "macro_f1" } } : {}),
    explanation: { value: 0.8, metric: "bertscore_f1", judge: judge != null ? { mean: judge, runs: [9] } : null },
  },
  skills: { reasoning: answer, typing: type },
  overall,
});

const board = (rows: ItemRow[], skillPerTask = false): ItemLeaderboard => ({
  project: { id: 1, name: "FLUB", kind: "items" },
  aggregate: "geometric",
  tasks: [
    { field: "answer", kind: "multiple-choice", title: "Answer", skill: skillPerTask ? "answer" : "reasoning" },
    { field: "type", kind: "classification", title: "Type", skill: skillPerTask ? "type" : "typing" },
    { field: "explanation", kind: "free-text", title: "Explanation", skill: skillPerTask ? "explanation" : "explaining" },
  ],
  skills: skillPerTask ? ["answer", "type", "explanation"] : ["reasoning", "typing", "explaining"],
  rows,
  comparisons: [],
  label_bias: [],
  unscored: [],
});

describe("buildColumns", () => {
  it("lists tasks, a judge column when a run was judged, skills, then overall", () => {
    const b = board([row("m1", "model", 0.5, 0.4, 0.45, 3.5), row("ann", "human", 0.9, null, 0.9)]);
    expect(buildColumns(b).map((c) => c.id)).toEqual([
      "task:answer",
      "task:type",
      "task:explanation",
      "judge:explanation",
      "skill:reasoning",
      "skill:typing",
      "skill:explaining",
      "overall",
    ]);
    expect(buildColumns(b).at(-1)?.title).toBe("Overall (geometric)");
    expect(buildColumns(b)[0]).toMatchObject({ title: "answer", about: "Answer", metric: "accuracy" });
  });

  it("leaves out skill columns when each task is its own skill, and the judge column without judges", () => {
    const ids = buildColumns(board([row("m1", "model", 0.5, 0.4, 0.45)], true)).map((c) => c.id);
    expect(ids).toEqual(["task:answer", "task:type", "task:explanation", "overall"]);
  });
});

describe("bestPerColumn", () => {
  it("finds the highest figure of each column, humans included, ignoring missing cells", () => {
    const rows = [row("m1", "model", 0.5, 0.4, 0.45, 3), row("m2", "model", 0.7, null, 0.7, 4), row("ann", "human", 0.9, 0.2, 0.42)];
    const columns = buildColumns(board(rows));
    const best = bestPerColumn(rows, columns);
    expect(best["task:answer"]).toBe(0.9);
    expect(best["task:type"]).toBe(0.4);
    expect(best["judge:explanation"]).toBe(4);
    expect(best.overall).toBe(0.7);
    const overall = columns.find((c) => c.id === "overall")!;
    expect(isBest(cellValue(rows[1], overall), best.overall)).toBe(true);
    expect(isBest(cellValue(rows[0], overall), best.overall)).toBe(false);
    expect(isBest(null, best.overall)).toBe(false);
  });
});

describe("delta marks", () => {
  it("writes signed deltas with three decimals and a mark", () => {
    expect(formatDelta(0.12)).toBe("+0.120");
    expect(formatDelta(-0.05)).toBe("−0.050");
    expect(formatDelta(0.0001)).toBe("±0.000");
    expect(deltaText({ base: 0.5, value: 0.75, delta: 0.25, mark: "up" })).toBe("▲ +0.250");
    expect(deltaText({ base: 0.5, value: 0.25, delta: -0.25, mark: "down" })).toBe("▼ −0.250");
    expect(deltaText({ base: 0.5, value: 0.5, delta: 0, mark: "same" })).toBe("= ±0.000");
    expect(deltaText(null)).toBe("—");
  });
});

describe("biasChartData", () => {
  it("gives predicted and gold counts per label in the task's label order, zeros filled", () => {
    const bias = {
      field: "answer",
      kind: "multiple-choice",
      labels: ["A", "B", "C", "D"],
      gold: { A: 2, B: 1, C: 1 },
      rows: [{ row: "m1", name: "m1", kind: "model" as const, variant: "zero-shot", predicted: { A: 4 }, gold: { A: 2, B: 1, C: 1 } }],
    };
    expect(biasChartData(bias, "m1")).toEqual({ labels: ["A", "B", "C", "D"], predicted: [4, 0, 0, 0], gold: [2, 1, 1, 0], total: 4, goldTotal: 4 });
    expect(biasChartData(bias, "other")).toBeNull();
  });
});
