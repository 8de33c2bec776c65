import { describe, expect, it } from "vitest";
import type { LeaderboardRow } from "../../types";
import { bestPerLevel, kindBadge } from "./rows";

const row = (name: string, f1: number, extra: Partial<LeaderboardRow> = {}): LeaderboardRow => ({
  kind: "run",
  id: name.length,
  name,
  model: null,
  backend: "transformers",
  variant: null,
  status: "done",
  levels: { "2": { precision: f1, recall: f1, f1, f1_low: null, f1_high: null } },
  unparseable_share: null,
  requests: null,
  generated: null,
  seconds: null,
  documents: 200,
  per_label: {},
  group: 0,
  rank: 1,
  coverage: { texts: 200, of: 200 },
  next: null,
  versus: null,
  ...extra,
});

describe("baselines on the leaderboard", () => {
  const model = row("smollm2", 0.2);
  const silent = row("silent", 0.3, { backend: "silent", baseline: true });
  const human = row("ann", 0.25, { kind: "annotator", backend: null });

  it("tags a baseline as a baseline, not a model", () => {
    expect(kindBadge(silent).text).toBe("baseline");
    expect(kindBadge(silent).title).toMatch(/silent/);
    expect(kindBadge(model).text).toBe("model");
    expect(kindBadge(human).text).toBe("human");
  });

  it("never makes a baseline a column's best, nor a partial row", () => {
    const partial = row("partial", 0.9, { coverage: { texts: 2, of: 200 } });
    expect(bestPerLevel([silent, model, human, partial], ["2"])).toEqual({ "2": 0.25 });
    expect(bestPerLevel([silent], ["2"])).toEqual({ "2": null });
  });
});
