import { describe, expect, it } from "vitest";
import { layoutLanes } from "./layout";

describe("overlap lane layout", () => {
  it("puts disjoint spans in one lane", () => {
    const l = layoutLanes([
      { key: "a", first: 0, last: 1 },
      { key: "b", first: 2, last: 3 },
    ]);
    expect(l.laneCount).toBe(1);
    expect(l.lanes.get("a")).toBe(0);
    expect(l.lanes.get("b")).toBe(0);
  });

  it("gives overlapping spans distinct lanes and reuses freed lanes", () => {
    const l = layoutLanes([
      { key: "long", first: 0, last: 5 },
      { key: "inner", first: 1, last: 2 },
      { key: "same", first: 1, last: 2 },
      { key: "later", first: 3, last: 4 },
    ]);
    expect(l.laneCount).toBe(3);
    expect(l.lanes.get("long")).toBe(0);
    const inner = l.lanes.get("inner")!;
    const same = l.lanes.get("same")!;
    expect(new Set([0, inner, same]).size).toBe(3);
    expect(l.lanes.get("later")).toBe(1); // freed after sentence 2
    expect(l.bySentence.get(1)!.map((x) => x.lane)).toEqual([0, 1, 2]);
    expect(l.bySentence.get(5)!.map((x) => x.key)).toEqual(["long"]);
  });

  it("never lets overlapping spans share a lane (random)", () => {
    let seed = 7;
    const rand = () => ((seed = (seed * 16807) % 2147483647) / 2147483647);
    const spans = Array.from({ length: 60 }, (_, i) => {
      const first = Math.floor(rand() * 40);
      return { key: `s${i}`, first, last: first + Math.floor(rand() * 5) };
    });
    const l = layoutLanes(spans);
    for (const a of spans)
      for (const b of spans)
        if (a !== b && a.first <= b.last && b.first <= a.last)
          expect(l.lanes.get(a.key)).not.toBe(l.lanes.get(b.key));
    // optimal for intervals: lanes = the largest number of spans over one sentence
    const maxDepth = Math.max(...[...l.bySentence.values()].map((v) => v.length));
    expect(l.laneCount).toBe(maxDepth);
  });
});
