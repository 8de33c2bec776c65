import { describe, expect, it } from "vitest";
import { addOrUnion, fromProposal, fromServer, isDirty, merge, moveBoundary, newSpan, rebase, snap, toggleLabel, toggleNoFallacy, toPayload, type Bounds } from "./state";

const bounds: Bounds = [
  [0, 10],
  [11, 20],
  [21, 30],
];

describe("adjudication state", () => {
  it("merges two annotators' spans into one span with both alternatives", () => {
    const span = merge(bounds, [
      { annotator: 1, span: { start: 0, end: 10, labels: ["ad hominem"] } },
      { annotator: 2, span: { start: 3, end: 15, labels: ["slippery slope"] } },
    ])!;
    expect([span.start, span.end]).toEqual([0, 20]);
    expect(span.labels).toEqual(["ad hominem", "slippery slope"]);
    expect(span.proposed_by).toEqual({ "ad hominem": [1], "slippery slope": [2] });
  });

  it("never leaves a span empty or with no fallacy alone", () => {
    const span = fromProposal({ start: 0, end: 10, labels: ["ad hominem"], proposed_by: { "ad hominem": [1] }, unanimous: true });
    expect(toggleLabel(span, "ad hominem").labels).toEqual(["ad hominem"]);
    const optional = toggleNoFallacy(span);
    expect(optional.labels).toEqual(["ad hominem", "no fallacy"]);
    expect(toggleLabel(optional, "ad hominem").labels).toEqual(["ad hominem", "no fallacy"]);
    expect(toggleNoFallacy(optional).labels).toEqual(["ad hominem"]);
  });

  it("moves boundaries by whole sentences and keeps one sentence", () => {
    const span = fromServer({ id: 4, start: 11, end: 20, labels: ["x"] });
    expect(moveBoundary(bounds, span, "start", -1)).toMatchObject({ start: 0, end: 20 });
    expect(moveBoundary(bounds, span, "end", 1)).toMatchObject({ start: 11, end: 30 });
    expect(moveBoundary(bounds, span, "end", -1)).toMatchObject({ start: 11, end: 20 });
    expect(moveBoundary(bounds, span, "start", -5)).toMatchObject({ start: 0 });
    expect(snap(bounds, 12, 22)).toEqual([11, 30]);
  });

  it("sends details only for labels that have some, and tracks changes", () => {
    const saved = [fromServer({ id: 1, start: 0, end: 10, labels: ["a", "no fallacy"], details: { a: { slots: {}, explanation: "why" } }, proposed_by: { a: [1], b: [2] } })];
    expect(toPayload(saved)).toEqual([{ start: 0, end: 10, labels: ["a", "no fallacy"], details: { a: { slots: {}, explanation: "why" } }, proposed_by: { a: [1] } }]);
    expect(isDirty(saved, saved)).toBe(false);
    expect(isDirty(saved, [toggleNoFallacy(saved[0])])).toBe(true);
  });

  it("accepting at a range already in the gold adds the labels instead of a copy", () => {
    const first = fromProposal({ start: 0, end: 10, labels: ["a"], proposed_by: { a: [1] }, unanimous: false });
    const again = fromProposal({ start: 0, end: 10, labels: ["b"], proposed_by: { b: [2] }, unanimous: false });
    const spans = addOrUnion([first], again);
    expect(spans).toHaveLength(1);
    expect(spans[0].labels).toEqual(["a", "b"]);
    expect(spans[0].proposed_by).toEqual({ a: [1], b: [2] });
  });

  it("re-applies the reviewer's changes on top of another save and loses neither", () => {
    const base = [fromServer({ id: 1, start: 0, end: 10, labels: ["a"] })];
    // theirs: edited the first range and added the second
    const theirs = [fromServer({ id: 1, start: 0, end: 10, labels: ["a", "no fallacy"] }), fromServer({ id: 2, start: 11, end: 20, labels: ["b"] })];
    // mine: added the third range only
    const mine = [...base, newSpan(bounds, 22, 25, "c")];
    const one = rebase(base, mine, theirs);
    expect(one.spans.map((s) => [s.start, s.labels])).toEqual([
      [0, ["a", "no fallacy"]],
      [11, ["b"]],
      [21, ["c"]],
    ]);
    expect([one.mine, one.both]).toEqual([1, 0]);
    // mine also changed the first range: my version is kept, and counted as changed by both
    const two = rebase(base, [toggleLabel(toggleLabel(base[0], "d"), "a")], theirs);
    expect(two.spans.map((s) => s.labels)).toEqual([["d"], ["b"]]);
    expect([two.mine, two.both]).toEqual([1, 1]);
    // deleting a range they did not touch keeps it deleted; an unchanged page takes theirs
    expect(rebase(base, [], [base[0]]).spans).toEqual([]);
    expect(rebase(base, base, theirs).spans).toEqual(theirs);
  });
});
