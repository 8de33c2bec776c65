import { describe, expect, it } from "vitest";
import { contains, dragOver, dragSelection, extendTo, fromChars, jump, move, range, select, startDrag, toChars } from "./selection";

const sentences = [
  { start: 0, end: 10 },
  { start: 11, end: 20 },
  { start: 21, end: 35 },
  { start: 37, end: 50 },
];

describe("selection", () => {
  it("click selects one sentence, shift-click extends from the anchor", () => {
    let sel = select(1, 4);
    expect(range(sel)).toEqual([1, 1]);
    sel = extendTo(sel, 3, 4);
    expect(range(sel)).toEqual([1, 3]);
    sel = extendTo(sel, 0, 4); // backwards past the anchor
    expect(range(sel)).toEqual([0, 1]);
    expect(sel.anchor).toBe(1);
  });

  it("shift-click without a selection starts one", () => {
    expect(extendTo(null, 2, 4)).toEqual({ anchor: 2, focus: 2 });
  });

  it("arrows move the focus; shift+arrows extend; bounds are clamped", () => {
    let sel = move(null, 1, false, 4)!;
    expect(sel).toEqual({ anchor: 0, focus: 0 });
    sel = move(sel, 1, false, 4)!;
    expect(sel).toEqual({ anchor: 1, focus: 1 });
    sel = move(sel, 1, true, 4)!;
    sel = move(sel, 1, true, 4)!;
    sel = move(sel, 1, true, 4)!; // clamped at the last sentence
    expect(range(sel)).toEqual([1, 3]);
    sel = move(sel, -1, false, 4)!; // plain arrow collapses to the moved focus
    expect(sel).toEqual({ anchor: 2, focus: 2 });
    expect(move(null, -1, false, 4)).toEqual({ anchor: 3, focus: 3 });
    expect(move(null, 1, false, 0)).toBeNull();
  });

  it("jumps and containment", () => {
    const sel = jump({ anchor: 1, focus: 1 }, 99, true, 4);
    expect(range(sel)).toEqual([1, 3]);
    expect(contains(sel, 2)).toBe(true);
    expect(contains(sel, 0)).toBe(false);
    expect(contains(null, 0)).toBe(false);
  });

  it("maps to and from character offsets", () => {
    expect(toChars({ anchor: 2, focus: 1 }, sentences)).toEqual({ start: 11, end: 35 });
    expect(fromChars(11, 35, sentences)).toEqual([1, 2]);
    expect(fromChars(15, 40, sentences)).toEqual([1, 3]); // snapped outwards
    expect(fromChars(100, 120, sentences)).toBeNull();
  });

  it("a drag selects the whole sentences from where it started to where the pointer is", () => {
    let d = startDrag(1, 4);
    expect(d.moved).toBe(false);
    expect(range(dragSelection(d))).toEqual([1, 1]); // a click on one sentence
    d = dragOver(d, 2, 4);
    expect(d.moved).toBe(true);
    expect(range(dragSelection(d))).toEqual([1, 2]); // two sentences touched
    d = dragOver(d, null, 4); // over a gap or a chip: nothing changes
    expect(range(dragSelection(d))).toEqual([1, 2]);
    d = dragOver(d, 3, 4);
    expect(range(dragSelection(d))).toEqual([1, 3]);
    d = dragOver(d, 0, 4); // back past the start: the range flips around the anchor
    expect(range(dragSelection(d))).toEqual([0, 1]);
    expect(dragSelection(d)).toEqual({ anchor: 1, focus: 0 });
    d = dragOver(d, 1, 4); // back to the start: one sentence, but still a drag
    expect(range(dragSelection(d))).toEqual([1, 1]);
    expect(d.moved).toBe(true);
    expect(range(dragSelection(dragOver(startDrag(2, 4), 99, 4)))).toEqual([2, 3]); // clamped
    // the sentences' characters: exactly sentences 1-2
    expect(toChars(dragSelection(dragOver(startDrag(1, 4), 2, 4)), sentences)).toEqual({ start: 11, end: 35 });
  });
});
