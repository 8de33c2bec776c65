import { describe, expect, it } from "vitest";
import type { ImportJob } from "../../../types";
import { PROBLEMS_SHOWN, guessFormat, isActive, jobProgress, jobSummary, problemsFile, problemsFileName, problemText, reportRows, shownProblems } from "./importJob";

const job = (over: Partial<ImportJob>): ImportJob => ({
  id: 1,
  project: 1,
  format: "mafalda",
  file_name: "f.jsonl",
  size: 10,
  status: "succeeded",
  lines_total: 0,
  lines_done: 0,
  report: {},
  errors: [],
  created_at: "2025-01-01T00:00:00Z",
  started_at: null,
  finished_at: null,
  ...over,
});

describe("import job state", () => {
  it("polls only while queued or running", () => {
    expect(isActive(job({ status: "queued" }))).toBe(true);
    expect(isActive(job({ status: "running" }))).toBe(true);
    expect(isActive(job({ status: "succeeded" }))).toBe(false);
    expect(isActive(job({ status: "failed" }))).toBe(false);
    expect(isActive(null)).toBe(false);
  });

  it("shows lines done of total, clamped", () => {
    expect(jobProgress(job({ status: "running", lines_total: 2000, lines_done: 500 }))).toEqual({ done: 500, total: 2000, text: "500 / 2,000 lines checked" });
    expect(jobProgress(job({ status: "running", lines_total: 10, lines_done: 12 })).done).toBe(10);
    expect(jobProgress(job({ status: "running" })).text).toBe("Reading the file…");
    expect(jobProgress(job({ status: "queued", lines_total: 5 })).text).toBe("Waiting for a worker…");
    expect(jobProgress(job({ status: "running", format: "hf", lines_total: 30, lines_done: 3 })).text).toBe("3 / 30 rows checked");
  });

  it("lists problems as LINE: FIELD: message", () => {
    expect(problemText({ line: 2, field: "text", message: "missing", text: "2: text: missing" })).toBe("2: text: missing");
    expect(problemText({ line: 4, field: null, message: "invalid JSON", text: "" })).toBe("4: invalid JSON");
    expect(problemText({ line: null, field: null, message: "... and 3 more", text: "" })).toBe("... and 3 more");
  });

  it("lists the first problems, then all of them on demand, and offers every one as a file", () => {
    const problems = Array.from({ length: 251 }, (_, i) => ({ line: i + 2, field: "text", message: "the text is blank", text: `${i + 2}: text: the text is blank` }));
    const first = shownProblems(problems, false);
    expect(first.shown).toHaveLength(PROBLEMS_SHOWN);
    expect(first.hidden).toBe(51);
    expect(shownProblems(problems, true)).toEqual({ shown: problems, hidden: 0 });
    expect(shownProblems(problems.slice(0, 3), false)).toEqual({ shown: problems.slice(0, 3), hidden: 0 });
    const file = problemsFile(problems);
    expect(file.split("\n")).toHaveLength(252); // 251 lines and the final newline
    expect(file.startsWith("2: text: the text is blank\n3: text:")).toBe(true);
    expect(file.endsWith("252: text: the text is blank\n")).toBe(true);
    expect(problemsFile([{ line: 4, field: null, message: "invalid JSON", text: "" }])).toBe("4: invalid JSON\n");
    expect(problemsFileName("many.csv")).toBe("many.csv-problems.txt");
    expect(problemsFileName("")).toBe("import-problems.txt");
  });

  it("reports the figures and summarises jobs", () => {
    const rows = reportRows({ texts: 20, documents_created: 20, documents_reused: 0, sentences: 80, spans: 0, skipped_to_clean: 0 });
    expect(rows.map((r) => [r.key, r.value])).toEqual([
      ["texts", 20],
      ["documents_created", 20],
      ["documents_reused", 0],
      ["sentences", 80],
      ["spans", 0],
      ["skipped_to_clean", 0],
    ]);
    expect(reportRows({ texts: 2 }).map((r) => r.key)).not.toContain("spans");
    const ls = reportRows({ format: "labelstudio", texts: 3, spans: 5, annotations_created: 5, regions_moved: 5, chars_moved: 134, runs: [{ name: "Label Studio v1" }] });
    expect(ls.slice(-4).map((r) => [r.key, r.value])).toEqual([
      ["annotations_created", 5],
      ["regions_moved", 5],
      ["chars_moved", 134],
      ["runs", 1],
    ]);
    const hf = reportRows({ format: "hf", kind: "spans", texts: 5, documents_created: 5, documents_reused: 0, sentences: 12, spans: 7, gold_version: 2 });
    expect(hf.map((r) => [r.key, r.value])).toEqual([
      ["texts", 5],
      ["documents_created", 5],
      ["documents_reused", 0],
      ["sentences", 12],
      ["spans", 7],
      ["gold_version", 2],
    ]);
    expect(reportRows({ format: "hf", kind: "items", texts: 2, documents_created: 2 }).map((r) => r.key)).not.toContain("gold_version");
    expect(jobSummary(job({ report: { documents_created: 3, documents_reused: 1 } }))).toBe("3 created, 1 reused");
    expect(jobSummary(job({ status: "failed", errors: [{ line: 1, field: null, message: "x", text: "1: x" }] }))).toBe("1 problem · nothing imported");
  });

  it("guesses the format from the file name", () => {
    expect(guessFormat("a.CSV")).toBe("csv");
    expect(guessFormat("a.txt")).toBe("text");
    expect(guessFormat("a.jsonl")).toBeNull();
    expect(guessFormat("mafalda-hf.ZIP")).toBe("hf");
  });
});
