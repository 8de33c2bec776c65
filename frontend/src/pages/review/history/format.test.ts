import { describe, expect, it } from "vitest";
import { compact, diffLines, isLabelList, plain, unknownBefore } from "./format";

describe("history values", () => {
  it("tells label lists from other values and keeps JSON short", () => {
    expect(isLabelList(["a", "b"])).toBe(true);
    expect(isLabelList([1])).toBe(false);
    expect(isLabelList([])).toBe(false);
    expect(compact([])).toBe("[]");
    expect(compact(null)).toBe("—");
    expect(compact({ a: 1 })).toBe('{"a":1}');
    expect(compact("x".repeat(300)).length).toBe(300);
    expect(compact({ k: "x".repeat(300) }).length).toBe(200);
  });
});

describe("unknown earlier state", () => {
  it("flags a change whose before values were never recorded", () => {
    expect(unknownBefore({ action: "changed", changes: [{ before: null }, { before: null }] })).toBe(true);
    expect(unknownBefore({ action: "changed", changes: [{ before: null }, { before: 3 }] })).toBe(false);
    expect(unknownBefore({ action: "created", changes: [{ before: null }] })).toBe(false);
  });
});

describe("readable diff", () => {
  it("shows label sets as added, removed and kept", () => {
    const lines = diffLines([{ field: "labels", before: ["ad hominem", "no fallacy"], after: ["ad hominem", "slippery slope"] }]);
    expect(lines).toEqual([{ kind: "labels", name: "labels", added: ["slippery slope"], removed: ["no fallacy"], kept: ["ad hominem"] }]);
  });

  it("joins start and end into one range and leaves out empty values of a created row", () => {
    const lines = diffLines([
      { field: "start", before: null, after: 0 },
      { field: "end", before: null, after: 29 },
      { field: "labels", before: null, after: ["ad hominem"] },
      { field: "details", before: null, after: {} },
      { field: "proposed_by", before: null, after: { "ad hominem": ["ann1", "ann2"] } },
    ]);
    expect(lines).toEqual([
      { kind: "value", name: "range", before: null, after: "characters 0–29" },
      { kind: "labels", name: "labels", added: ["ad hominem"], removed: [], kept: [] },
      { kind: "value", name: "proposed by", before: null, after: "ad hominem: ann1; ann2" },
    ]);
  });

  it("lists template slots and explanations per label, statuses and users in words", () => {
    const lines = diffLines([
      { field: "details", before: { "ad hominem": { slots: { E: "the senator" }, explanation: "" } }, after: { "ad hominem": { slots: { E: "the senator", P: "lies" }, explanation: "attacks him" } } },
      { field: "status", before: "in_progress", after: "submitted" },
      { field: "updated_by", before: "reviewer", after: "admin" },
      { field: "comments", before: [], after: ["checked"] },
    ]);
    expect(lines).toEqual([
      { kind: "value", name: "ad hominem · slot P", before: null, after: "lies" },
      { kind: "value", name: "ad hominem · explanation", before: null, after: "attacks him" },
      { kind: "value", name: "status", before: "in progress", after: "submitted" },
      { kind: "value", name: "saved by", before: "reviewer", after: "admin" },
      { kind: "value", name: "notes", before: null, after: "checked" },
    ]);
    expect(plain("submitted_at", "2026-11-27T07:41:19Z")).not.toContain("T07");
  });
});
