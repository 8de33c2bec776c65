// Selection of a contiguous run of sentences: an anchor (where it started) and a focus
// (the sentence the keyboard caret is on). Immutable values; every operation returns a new one.

export interface Selection {
  anchor: number;
  focus: number;
}

export const NONE: Selection | null = null;

export function clamp(i: number, count: number): number {
  return Math.max(0, Math.min(count - 1, i));
}

/** A plain click: select that one sentence. */
export function select(index: number, count: number): Selection {
  const i = clamp(index, count);
  return { anchor: i, focus: i };
}

/** Shift-click: extend from the current anchor to the clicked sentence. */
export function extendTo(sel: Selection | null, index: number, count: number): Selection {
  const i = clamp(index, count);
  if (!sel) return { anchor: i, focus: i };
  return { anchor: sel.anchor, focus: i };
}

/** Arrow keys: move the focus by delta; with extend (shift) the anchor stays put. */
export function move(
  sel: Selection | null,
  delta: number,
  extend: boolean,
  count: number,
): Selection | null {
  if (count <= 0) return null;
  if (!sel) {
    const i = delta < 0 ? count - 1 : 0;
    return { anchor: i, focus: i };
  }
  const focus = clamp(sel.focus + delta, count);
  return extend ? { anchor: sel.anchor, focus } : { anchor: focus, focus };
}

/** Home/End style jumps. */
export function jump(sel: Selection | null, to: number, extend: boolean, count: number) {
  const focus = clamp(to, count);
  return extend && sel ? { anchor: sel.anchor, focus } : { anchor: focus, focus };
}

/** Inclusive sentence range [first, last] covered by the selection. */
export function range(sel: Selection): [number, number] {
  return sel.anchor <= sel.focus ? [sel.anchor, sel.focus] : [sel.focus, sel.anchor];
}

export function contains(sel: Selection | null, index: number): boolean {
  if (!sel) return false;
  const [a, b] = range(sel);
  return index >= a && index <= b;
}

export interface SentenceBounds {
  start: number;
  end: number;
}

/** Character offsets [start, end) of the selected sentences. */
export function toChars(sel: Selection, sentences: SentenceBounds[]): { start: number; end: number } {
  const [a, b] = range(sel);
  return { start: sentences[a].start, end: sentences[b].end };
}

/**
 * Sentence indices [first, last] covering the character range [start, end). Snaps
 * outwards when the offsets are not on sentence boundaries (imported data).
 */
export function fromChars(
  start: number,
  end: number,
  sentences: SentenceBounds[],
): [number, number] | null {
  let first = -1;
  let last = -1;
  for (let i = 0; i < sentences.length; i++) {
    const s = sentences[i];
    if (s.end > start && s.start < end) {
      if (first < 0) first = i;
      last = i;
    }
  }
  return first < 0 ? null : [first, last];
}

/**
 * A mouse drag across the text: it starts on a sentence (mousedown) and selects every
 * sentence from there to the one under the pointer, snapped to whole sentences.
 */
export interface Drag {
  anchor: number;
  /** The pointer left the sentence it started on (a drag, not a click). */
  moved: boolean;
  last: number;
}

export function startDrag(index: number, count: number): Drag {
  const i = clamp(index, count);
  return { anchor: i, moved: false, last: i };
}

/** The drag after the pointer moved over sentence `index` (null when it is not a sentence). */
export function dragOver(drag: Drag, index: number | null, count: number): Drag {
  if (index === null || count <= 0) return drag;
  const i = clamp(index, count);
  return { anchor: drag.anchor, moved: drag.moved || i !== drag.anchor, last: i };
}

/** The selection a drag shows: anchor where it started, focus under the pointer. */
export function dragSelection(drag: Drag): Selection {
  return { anchor: drag.anchor, focus: drag.last };
}
