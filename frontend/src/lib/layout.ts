// Lane layout for overlapping spans: each span gets the lowest lane (0 = closest to the
// text) not used by any span it overlaps, so overlapping spans never share an underline.

export interface Interval {
  key: string;
  first: number; // inclusive sentence index
  last: number; // inclusive sentence index
}

export interface LaneLayout {
  lanes: Map<string, number>;
  laneCount: number;
  /** For each sentence index: the spans covering it, ordered by lane. */
  bySentence: Map<number, { key: string; lane: number }[]>;
}

export function layoutLanes(spans: Interval[]): LaneLayout {
  // Longer spans first among equal starts, so nested short spans sit on the outer lanes.
  const order = [...spans].sort(
    (x, y) => x.first - y.first || y.last - x.last || (x.key < y.key ? -1 : x.key > y.key ? 1 : 0),
  );
  const laneEnds: number[] = []; // last sentence index occupied in each lane
  const lanes = new Map<string, number>();
  for (const s of order) {
    let lane = laneEnds.findIndex((end) => end < s.first);
    if (lane < 0) {
      lane = laneEnds.length;
      laneEnds.push(s.last);
    } else {
      laneEnds[lane] = s.last;
    }
    lanes.set(s.key, lane);
  }
  const bySentence = new Map<number, { key: string; lane: number }[]>();
  for (const s of order) {
    const lane = lanes.get(s.key)!;
    for (let i = s.first; i <= s.last; i++) {
      let list = bySentence.get(i);
      if (!list) bySentence.set(i, (list = []));
      list.push({ key: s.key, lane });
    }
  }
  for (const list of bySentence.values()) list.sort((a, b) => a.lane - b.lane);
  return { lanes, laneCount: laneEnds.length, bySentence };
}
