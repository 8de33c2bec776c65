import { describe, expect, it } from "vitest";
import { lineColumn, parseJsonObject, toJsonText } from "./jsonInput";

describe("JSON settings", () => {
  it("reads an object, and blank as {}", () => {
    expect(parseJsonObject('{"gguf_file": "m.gguf"}')).toEqual({ ok: true, value: { gguf_file: "m.gguf" } });
    expect(parseJsonObject("   ")).toEqual({ ok: true, value: {} });
  });

  it("refuses what is not an object, saying what it got", () => {
    const list = parseJsonObject("[1, 2]");
    expect(list.ok).toBe(false);
    if (!list.ok) expect(list.error).toBe('settings: must be a JSON object such as {"key": "value"}, not a list');
    const num = parseJsonObject("3", "decoding");
    if (!num.ok) expect(num.error).toMatch(/^decoding: must be a JSON object .* not a number$/);
    else throw new Error("accepted a number");
  });

  it("names the line and column of a syntax error", () => {
    const r = parseJsonObject('{\n  "a": 1,\n  b: 2\n}');
    expect(r.ok).toBe(false);
    if (!r.ok) {
      expect(r.error).toMatch(/^settings: not valid JSON \(line 3, column 3\)/);
      expect(r.error).not.toMatch(/position/);
    }
  });

  it("computes line and column of an offset", () => {
    expect(lineColumn("ab\ncd", 0)).toEqual({ line: 1, column: 1 });
    expect(lineColumn("ab\ncd", 4)).toEqual({ line: 2, column: 2 });
  });

  it("prints settings for a textarea", () => {
    expect(toJsonText({})).toBe("");
    expect(toJsonText({ a: 1 })).toBe('{\n  "a": 1\n}');
  });
});
