import { describe, expect, it } from "vitest";
import type { LeaderboardRow } from "../types";
import { PALETTE, labelChartData, rankRows } from "./labelChart";

const row = (name: string, f1: number | null, perLabel: Record<string, number> | null, kind: LeaderboardRow["kind"] = "run"): LeaderboardRow => ({
  kind,
  id: name.length,
  name,
  model: null,
  backend: null,
  variant: null,
  status: "done",
  levels: { "0": null, "1": null, "2": f1 == null ? null : { precision: f1, recall: f1, f1, f1_low: null, f1_high: null } },
  unparseable_share: null,
  requests: null,
  generated: null,
  seconds: null,
  documents: 10,
  per_label: perLabel ? { "2": perLabel } : {},
  group: 0,
  rank: null,
  coverage: { texts: 10, of: 10 },
  next: null,
  versus: null,
});

describe("per-label F1 chart data", () => {
  it("ranks rows by F1 with missing scores last, ties in their order", () => {
    const rows = [row("a", null, null), row("b", 0.2, null), row("c", 0.5, null), row("d", 0.2, null)];
    expect(rankRows(rows, 2).map((r) => r.name)).toEqual(["c", "b", "d", "a"]);
  });

  it("makes one dataset per row over the level's labels, top rows only", () => {
    const rows = [
      row("weak", 0.1, { "ad hominem": 0.1 }),
      row("strong", 0.6, { "ad hominem": 0.7, "appeal to fear": 0.5 }),
      row("alice", 0.4, { "appeal to fear": 0.3 }, "annotator"),
      row("unscored", 0.9, null),
    ];
    const data = labelChartData(rows, { "2": ["ad hominem", "appeal to fear", "strawman"] }, 2, 2);
    expect(data.labels).toEqual(["ad hominem", "appeal to fear", "strawman"]);
    expect(data.available).toBe(3);
    expect(data.datasets.map((d) => d.label)).toEqual(["strong", "alice (human)"]);
    expect(data.datasets[0].data).toEqual([0.7, 0.5, null]);
    expect(data.datasets[1].data).toEqual([null, 0.3, null]);
    expect(data.datasets[0].backgroundColor).toBe(PALETTE[0]);
    expect(data.datasets[1].kind).toBe("annotator");
    expect(data.datasets[1].backgroundColor).toBe(`${PALETTE[1]}66`);
  });

  it("falls back to the labels the rows have, and keeps names unique", () => {
    const rows = [row("same", 0.5, { b: 0.5, a: 0.1 }), row("same", 0.4, { c: 0.2 })];
    const data = labelChartData(rows, {}, "2");
    expect(data.labels).toEqual(["a", "b", "c"]);
    expect(data.datasets.map((d) => d.label)).toEqual(["same", "same #2"]);
  });

  it("is empty at a level without per-label scores", () => {
    const data = labelChartData([row("x", 0.5, { a: 1 })], { "1": ["c1"] }, 1);
    expect(data).toEqual({ labels: ["c1"], datasets: [], available: 0, partial: 0 });
  });
});
