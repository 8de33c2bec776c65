import { describe, expect, it } from "vitest";
import { compact, isLabelList } from "./format";

describe("history values", () => {
  it("tells label lists from other values and keeps JSON short", () => {
    expect(isLabelList(["a", "b"])).toBe(true);
    expect(isLabelList([1])).toBe(false);
    expect(compact(null)).toBe("—");
    expect(compact({ a: 1 })).toBe('{"a":1}');
    expect(compact("x".repeat(300)).length).toBe(300);
    expect(compact({ k: "x".repeat(300) }).length).toBe(200);
  });
});
