import { describe, expect, it } from "vitest";
import { heat } from "./configs";
import { pairMatrix, toCsv, usedCooccurrence } from "./data";
import type { AgreementAnswer, LevelFigures } from "../../../types";

const figures = {
  pairwise_alpha: [{ a: 1, b: 2, masi: 0.5, jaccard: 0.4, units: 10 }],
  f1: [
    { reference: 1, scored: 2, precision: 1, recall: 0.5, f1: 0.6, documents: 2 },
    { reference: 2, scored: 1, precision: 0.5, recall: 1, f1: 0.7, documents: 2 },
    { reference: "gold", scored: 1, precision: 1, recall: 1, f1: 0.9, documents: 2 },
  ],
  cooccurrence: { labels: ["a", "b", "c"], counts: [[2, 1, 0], [1, 0, 0], [0, 0, 0]] },
} as unknown as LevelFigures;
const answer = { status: "done", key: "k", annotators: [{ id: 1, username: "ann1" }, { id: 2, username: "ann, 2" }] } as AgreementAnswer;

describe("dashboard data", () => {
  it("quotes CSV fields that need it", () => {
    expect(toCsv([["a", 'say "hi"', "x,y", null, 0.123456789]])).toBe('a,"say ""hi""","x,y",,0.123457\r\n');
  });
  it("neutralises spreadsheet formulas and keeps numbers", () => {
    expect(toCsv([["=HYPERLINK(\"x\")", "+cmd", "@a", "-0.5", -0.5, "'=b", "a=b"]])).toBe(
      '"\'=HYPERLINK(""x"")",\'+cmd,\'@a,-0.5,-0.5,\'\'=b,a=b\r\n',
    );
  });
  it("quotes line breaks and joins rows with CRLF", () => {
    expect(toCsv([["", "a"], ["line\nbreak", 1]])).toBe(',a\r\n"line\nbreak",1\r\n');
  });
  it("colours undefined cells grey and clamps the scale", () => {
    expect(heat(null, 1)).toBe("#eeeeee");
    expect(heat(0, 1)).toBe("rgb(255,255,255)");
    expect(heat(2, 1)).toBe("rgb(37,99,235)");
    expect(heat(-1, 1, -1)).toBe("rgb(255,255,255)");
  });
  it("builds the alpha matrix symmetric with a unit diagonal", () => {
    const m = pairMatrix(answer, figures, "masi");
    expect(m.rows).toEqual(["ann1", "ann, 2"]);
    expect(m.values).toEqual([[1, 0.5], [0.5, 1]]);
  });
  it("builds the F1 matrix with the gold as a reference row", () => {
    const m = pairMatrix(answer, figures, "f1");
    expect(m.rows).toEqual(["gold", "ann1", "ann, 2"]);
    expect(m.values).toEqual([[0.9, null], [null, 0.6], [0.7, null]]);
  });
  it("keeps only labels that co-occur", () => {
    expect(usedCooccurrence(figures).rows).toEqual(["a", "b"]);
  });
});
