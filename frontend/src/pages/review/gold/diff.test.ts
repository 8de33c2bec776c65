import { describe, expect, it } from "vitest";
import { byDocument, summaryText } from "./diff";

describe("gold diff", () => {
  it("groups added, removed and changed spans by document", () => {
    const span = (document: number, start: number) => ({ document, document_name: `d${document}`, start, end: start + 5, text: "t", labels: ["a"] });
    const groups = byDocument({
      previous: 1,
      summary: { added: 2, removed: 1, changed: 1 },
      added: [span(2, 10), span(2, 0)],
      removed: [span(3, 0)],
      changed: [{ document: 2, document_name: "d2", start: 20, end: 25, text: "t", before: ["a"], after: ["a", "b"] }],
    });
    expect(groups.map((g) => g.document)).toEqual([2, 3]);
    expect(groups[0].added.map((s) => s.start)).toEqual([0, 10]);
    expect(groups[0].changed).toHaveLength(1);
    expect(summaryText({ added: 2, removed: 1, changed: 0 })).toBe("+2 / −1 / ~0");
  });
});
