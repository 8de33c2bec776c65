import { describe, expect, it } from "vitest";
import type { ItemField } from "../../types";
import {
  addSegment,
  criteriaLines,
  fieldErrors,
  missingAnswers,
  pieces,
  rankAdd,
  rankMove,
  rankRemove,
  removeSegment,
  scale,
  segmentFromSelection,
  withChanges,
} from "./logic";

const field = (name: string, kind: ItemField["kind"], extra: Partial<ItemField> = {}): ItemField => ({
  name,
  kind,
  title: "",
  help: "",
  labels: [],
  ...extra,
});

describe("ranked", () => {
  it("adds in order up to max, never twice", () => {
    let r = rankAdd([], "a", 2);
    r = rankAdd(r, "b", 2);
    expect(r).toEqual(["a", "b"]);
    expect(rankAdd(r, "c", 2)).toEqual(["a", "b"]); // full
    expect(rankAdd(["a"], "a", 3)).toEqual(["a"]);
  });
  it("moves up and down within the list", () => {
    expect(rankMove(["a", "b", "c"], 2, -1)).toEqual(["a", "c", "b"]);
    expect(rankMove(["a", "b", "c"], 0, 1)).toEqual(["b", "a", "c"]);
    expect(rankMove(["a", "b", "c"], 0, -1)).toEqual(["a", "b", "c"]);
    expect(rankMove(["a", "b", "c"], 2, 5)).toEqual(["a", "b", "c"]);
  });
  it("removes, and an empty ranking stays a list (no fallacy)", () => {
    expect(rankRemove(["a", "b"], "a")).toEqual(["b"]);
    expect(rankRemove(["a"], "a")).toEqual([]);
  });
});

describe("segments", () => {
  const text = "He is a liar.  So he is wrong.";
  it("makes a segment from a selection in either direction, trimmed", () => {
    expect(segmentFromSelection(text, 0, 13, "ad hominem")).toEqual([0, 13, "ad hominem"]);
    expect(segmentFromSelection(text, 15, 12, "x")).toEqual([12, 13, "x"]);
    expect(segmentFromSelection(text, 13, 15, "x")).toBeNull(); // only blanks
    expect(segmentFromSelection(text, 0, 999, "x")).toEqual([0, text.length, "x"]);
    expect(segmentFromSelection(text, 0, 5, "")).toBeNull(); // no label
  });
  it("counts code points, as the server does, when the text has emoji", () => {
    const emoji = "😀😀 𝐀 liar.  So wrong.";
    // Python: len(emoji) == 21, emoji.find("𝐀 liar.") == 3, emoji.find("So") == 12
    expect(segmentFromSelection(emoji, 2, 11, "x")).toEqual([3, 10, "x"]);
    expect(segmentFromSelection(emoji, 9, 999, "x")).toEqual([9, 21, "x"]);
    expect(segmentFromSelection(emoji, 10, 12, "x")).toBeNull(); // only blanks
  });
  it("keeps segments in text order without duplicates, and removes by index", () => {
    let s = addSegment([], [15, 30, "b"]);
    s = addSegment(s, [0, 13, "a"]);
    s = addSegment(s, [0, 13, "a"]);
    expect(s).toEqual([
      [0, 13, "a"],
      [15, 30, "b"],
    ]);
    expect(removeSegment(s, 0)).toEqual([[15, 30, "b"]]);
  });
  it("cuts the text into pieces with the labels covering them", () => {
    expect(pieces(10, [[2, 6, "a"], [4, 8, "b"]])).toEqual([
      { start: 0, end: 2, labels: [] },
      { start: 2, end: 4, labels: ["a"] },
      { start: 4, end: 6, labels: ["a", "b"] },
      { start: 6, end: 8, labels: ["b"] },
      { start: 8, end: 10, labels: [] },
    ]);
    expect(pieces(5, [])).toEqual([{ start: 0, end: 5, labels: [] }]);
  });
});

describe("the response", () => {
  const fields = [
    field("answer", "multiple-choice"),
    field("ranking", "ranked"),
    field("spans", "segmentation"),
    field("why", "free-text"),
    field("fallacious", "detection"),
    field("quality", "likert"),
  ];
  it("needs every answer field to submit, not the ratings", () => {
    expect(missingAnswers(fields, {})).toEqual(["answer", "ranking", "spans", "why", "fallacious"]);
    expect(missingAnswers(fields, { answer: "A", ranking: [], spans: [], why: " ", fallacious: false })).toEqual(["why"]);
    expect(missingAnswers(fields, { answer: "A", ranking: [], spans: [], why: "x", fallacious: false })).toEqual([]);
  });
  it("shows unsaved changes over the saved response (null clears)", () => {
    expect(withChanges({ a: "A", b: true }, { a: null, c: 3 })).toEqual({ b: true, c: 3 });
  });
  it("lists scores and criteria", () => {
    expect(scale(field("q", "likert"))).toEqual([1, 2, 3, 4, 5]);
    expect(scale(field("q", "rubric", { min: 0, max: 2 }))).toEqual([0, 1, 2]);
    expect(criteriaLines("one\n\ntwo")).toEqual(["one", "two"]);
    expect(criteriaLines({ "5": "names the flaw" })).toEqual(["5: names the flaw"]);
  });
});

describe("errors of a refused response", () => {
  it("maps each field's first message to the field", () => {
    expect(fieldErrors({ "response.answer": ["Not one of the options.", "second"], annotation: "Submitted annotations are read-only." })).toEqual({
      answer: "Not one of the options.",
      annotation: "Submitted annotations are read-only.",
    });
  });
  it("reads nothing from a body without fields", () => {
    expect(fieldErrors(null)).toEqual({});
    expect(fieldErrors("<html>")).toEqual({});
  });
});
