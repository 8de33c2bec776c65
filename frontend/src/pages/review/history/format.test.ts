import { describe, expect, it } from "vitest";
import { compact, isLabelList, unknownBefore } from "./format";

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
