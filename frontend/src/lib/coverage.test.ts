import { describe, expect, it } from "vitest";
import type { LeaderboardRow } from "../types";
import { bestF1, coverageMark, isPartial } from "./coverage";
import { labelChartData } from "./labelChart";

const row = (name: string, f1: number, texts: number, of = 200): LeaderboardRow => ({
  kind: "run",
  id: name.length,
  name,
  model: null,
  backend: null,
  variant: null,
  status: "done",
  levels: { "2": { precision: f1, recall: f1, f1, f1_low: null, f1_high: null } },
  unparseable_share: null,
  requests: null,
  generated: null,
  seconds: null,
  documents: texts,
  per_label: { "2": { "ad hominem": f1 } },
  group: texts === of ? 0 : 1,
  rank: 1,
  coverage: { texts, of },
  next: null,
  versus: null,
});

describe("partial rows", () => {
  it("knows a partial coverage of texts or items", () => {
    expect(isPartial({ texts: 4, of: 200 })).toBe(true);
    expect(isPartial({ texts: 200, of: 200 })).toBe(false);
    expect(isPartial({ items: 2, of: 6, complete: false })).toBe(true);
    expect(isPartial({ items: 6, of: 6, complete: true })).toBe(false);
    expect(isPartial(null)).toBe(false);
    expect(coverageMark({ texts: 4, of: 200 })).toBe(" (4/200 texts)");
    expect(coverageMark({ texts: 200, of: 200 })).toBe("");
  });

  it("is never the best F1 of a level, even when its F1 is the highest", () => {
    const rows = [row("complete", 0.3, 200), row("four texts", 0.9, 4)];
    expect(bestF1(rows, "2")).toBe(0.3);
    // a group of partial rows alone has no best
    expect(bestF1([row("four texts", 0.9, 4)], "2")).toBeNull();
  });

  it("is charted with its coverage in its name and marked partial", () => {
    const data = labelChartData([row("complete", 0.3, 200), row("four texts", 0.9, 4)], { "2": ["ad hominem"] }, 2);
    expect(data.datasets.map((d) => d.label)).toEqual(["four texts (4/200 texts)", "complete"]);
    expect(data.datasets.map((d) => d.partial)).toEqual([true, false]);
    expect(data.partial).toBe(1);
  });
});
