import { describe, expect, it } from "vitest";
import { fieldMessages, itemMean, percent, refusalLine, shareChartData } from "./logic";
import type { ReportRow } from "../../types";

const row = (type: string, method: string, share: Record<string, number>): ReportRow => ({
  type,
  method,
  jobs: 1,
  models: ["openai:m"],
  facts: { proposed: 3, valid: 2, rejected: 1, by_reason: {} },
  satisfying: 1,
  items: 1,
  judge: { judgements: 3, unparseable: 0, mean: 2, share },
  review: { pending: 0, accepted: 1, edited: 0, rejected: 0, acceptance_rate: 1 },
});

describe("generation report helpers", () => {
  it("stacks the shares of scores 0..3 per type and method, in percent", () => {
    const data = shareChartData([row("false dilemma", "prolog", { "0": 0, "1": 0, "2": 1 / 3, "3": 2 / 3 }), row("false dilemma", "direct", { "3": 1 })]);
    expect(data.labels).toEqual(["false dilemma · prolog", "false dilemma · direct"]);
    expect(data.datasets.map((d) => d.label)).toEqual(["score 0", "score 1", "score 2", "score 3"]);
    expect(data.datasets[2].data).toEqual([33.3, 0]);
    expect(data.datasets[3].data).toEqual([66.7, 100]);
  });

  it("reads the line of swipl's refusal and every field message", () => {
    expect(refusalLine("line 12: swipl warning: Singleton variables: [Y]")).toBe(12);
    expect(refusalLine("no line here")).toBeNull();
    expect(fieldMessages({ source: ["line 3: swipl error: syntax"], type: ["no rule file"] })).toEqual(["source: line 3: swipl error: syntax", "type: no rule file"]);
    expect(fieldMessages({ detail: "nope" })).toEqual(["nope"]);
  });

  it("formats means and rates", () => {
    expect(itemMean([3, 3, null])).toBe(3);
    expect(itemMean([null])).toBeNull();
    expect(percent(0.5)).toBe("50%");
    expect(percent(null)).toBe("—");
  });
});
