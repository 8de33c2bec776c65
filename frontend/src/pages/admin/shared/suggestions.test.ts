import { describe, expect, it } from "vitest";
import type { Run } from "../../../types";
import { createdLines, formatRate, formatTiming, offeredRuns, refusals, rowsByRun, type ReportRow } from "./suggestions";

const run = (id: number, name: string, status: Run["status"]) => ({ id, name, status }) as Run;

const row = (run: number, run_name: string, label: string, rate: number | null): ReportRow => ({
  run,
  run_name,
  label,
  suggestions: 2,
  accepted: 1,
  rejected: 1,
  acceptance_rate: rate,
});

describe("suggestions admin helpers", () => {
  it("offers the finished runs by name and counts the others", () => {
    const { finished, unfinished } = offeredRuns([run(3, "zeta", "done"), run(1, "busy", "running"), run(2, "alpha", "done"), run(4, "broken", "failed")]);
    expect(finished.map((r) => r.name)).toEqual(["alpha", "zeta"]);
    expect(unfinished).toBe(2);
  });

  it("names each refused run, one line each", () => {
    const body = { runs: ["run 'run-coarse' (id 7) labels at level 1: only fallacy types suggest", "run 'x' (id 8) is running, not done"] };
    expect(refusals(400, body)).toEqual(body.runs);
    expect(refusals(400, { project: ["project 'P' is archived: read-only"] })).toEqual(["project: project 'P' is archived: read-only"]);
    expect(refusals(403, { detail: "only admins create suggestions" })).toEqual(["only admins create suggestions"]);
    expect(refusals(502, "<html>Bad gateway</html>")).toEqual(["The server refused (502); nothing was created."]);
    expect(refusals(500, null)).toEqual(["The server refused (500); nothing was created."]);
  });

  it("says per run what a creation made", () => {
    const lines = createdLines({
      created: 3,
      runs: [
        { run: 1, name: "run-one", created: 2, existing: 0, no_fallacy: 1, skipped: [] },
        { run: 2, name: "run-two", created: 1, existing: 4, no_fallacy: 2, skipped: ["document 9: no sentence 5"] },
      ],
    });
    expect(lines).toEqual(["run-one: 2 new, 1 sentence with no fallacy", "run-two: 1 new, 4 already there, 2 sentences with no fallacy, 1 skipped (document 9: no sentence 5)"]);
  });

  it("formats rates and times, a dash when there is nothing", () => {
    expect(formatRate(0.5)).toBe("50%");
    expect(formatRate(2 / 3)).toBe("67%");
    expect(formatRate(0)).toBe("0%");
    expect(formatRate(null)).toBe("—");
    expect(formatTiming({ annotations: 2, mean_seconds: 100, median_seconds: 90 })).toBe("1 min 40 s (median 1 min 30 s)");
    expect(formatTiming({ annotations: 0, mean_seconds: null, median_seconds: null })).toBe("—");
  });

  it("groups the report's rows by run, keeping their order", () => {
    const groups = rowsByRun([row(1, "run-one", "ad hominem", 0.5), row(1, "run-one", "slippery slope", null), row(2, "run-two", "ad hominem", 1)]);
    expect(groups.map((g) => [g.name, g.rows.map((r) => r.label)])).toEqual([
      ["run-one", ["ad hominem", "slippery slope"]],
      ["run-two", ["ad hominem"]],
    ]);
  });
});
