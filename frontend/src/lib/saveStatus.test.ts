import { describe, expect, it } from "vitest";
import { backoffDelay, type SaveState, type SaveStatus, saveStatus, StatusReporter } from "./saveStatus";

const calm: SaveState = { pending: 0, blocked: null, offline: false, retryMessage: null, rejection: null };

describe("save status", () => {
  it("says saved, saving, offline or retrying from the pending changes and the network", () => {
    expect(saveStatus(calm)).toEqual({ state: "saved" });
    expect(saveStatus({ ...calm, pending: 2 })).toEqual({ state: "saving", pending: 2 });
    expect(saveStatus({ ...calm, pending: 2, offline: true })).toEqual({ state: "offline", pending: 2 });
    expect(saveStatus({ ...calm, pending: 1, retryMessage: "Server error 502; retrying" })).toEqual({
      state: "retrying",
      pending: 1,
      message: "Server error 502; retrying",
    });
    // Nothing waiting: the network does not matter any more.
    expect(saveStatus({ ...calm, offline: true, retryMessage: "x" })).toEqual({ state: "saved" });
  });

  it("puts a stop first and a past refusal last", () => {
    const stopped = { ...calm, pending: 1, offline: true, blocked: "Signed out", rejection: "Not saved: x" };
    expect(saveStatus(stopped)).toEqual({ state: "error", pending: 1, message: "Signed out" });
    expect(saveStatus({ ...calm, blocked: "Signed out" })).toEqual({ state: "error", pending: 0, message: "Signed out" });
    expect(saveStatus({ ...calm, pending: 1, rejection: "Not saved: x" })).toEqual({ state: "saving", pending: 1 });
    expect(saveStatus({ ...calm, rejection: "Not saved: x" })).toEqual({ state: "error", pending: 0, message: "Not saved: x" });
  });

  it("doubles the retry delay up to a limit", () => {
    expect([0, 1, 2, 3].map((n) => backoffDelay(n))).toEqual([1000, 2000, 4000, 8000]);
    expect(backoffDelay(10)).toBe(30000);
    expect(backoffDelay(3, 10, 50)).toBe(50);
    expect(backoffDelay(2, 10, undefined)).toBe(40);
  });
});

describe("status reporter", () => {
  it("passes each change on once", () => {
    const seen: SaveStatus[] = [];
    const reporter = new StatusReporter((s) => seen.push(s));
    reporter.report({ state: "saving", pending: 1 });
    reporter.report({ state: "saving", pending: 1 });
    reporter.report({ state: "saving", pending: 2 });
    reporter.report({ state: "saved" });
    expect(seen).toEqual([{ state: "saving", pending: 1 }, { state: "saving", pending: 2 }, { state: "saved" }]);
  });

  it("settles the waiters when all is saved or saving is stuck, not while saving", async () => {
    const reporter = new StatusReporter(() => {});
    let first: boolean | null = null;
    void reporter.wait().then((ok) => (first = ok));
    reporter.report({ state: "saving", pending: 1 });
    await Promise.resolve();
    expect(first).toBeNull();
    reporter.report({ state: "saved" });
    await Promise.resolve();
    expect(first).toBe(true);

    const stuck = reporter.wait();
    reporter.report({ state: "offline", pending: 1 });
    expect(await stuck).toBe(false);

    const stopped = reporter.wait();
    reporter.settle(false);
    expect(await stopped).toBe(false);
  });
});
