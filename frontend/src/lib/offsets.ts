// Text offsets of the API count Unicode code points (Python str indices); JavaScript strings
// index UTF-16 code units, where a character outside the Basic Multilingual Plane (emoji,
// 𝐀 U+1D400, most flags' halves) takes two. Every offset the page receives or sends stays in
// code points; only slicing and DOM positions go through this module.

const isHigh = (c: number) => c >= 0xd800 && c <= 0xdbff;
const isLow = (c: number) => c >= 0xdc00 && c <= 0xdfff;

/** One text with its code-point ↔ UTF-16 mapping (built once, O(n)). */
export class TextOffsets {
  /** Length in code points (Python's len). */
  readonly length: number;
  /** UTF-16 index of each code point, plus the text's end; null when both units agree. */
  private readonly units: Uint32Array | null;

  constructor(readonly text: string) {
    let pairs = 0;
    for (let i = 0; i + 1 < text.length; i++) {
      if (isHigh(text.charCodeAt(i)) && isLow(text.charCodeAt(i + 1))) {
        pairs++;
        i++;
      }
    }
    this.length = text.length - pairs;
    if (!pairs) {
      this.units = null;
      return;
    }
    const units = new Uint32Array(this.length + 1);
    let i = 0;
    for (let cp = 0; cp < this.length; cp++) {
      units[cp] = i;
      const pair = isHigh(text.charCodeAt(i)) && isLow(text.charCodeAt(i + 1));
      i += pair ? 2 : 1;
    }
    units[this.length] = text.length;
    this.units = units;
  }

  /** UTF-16 index of a code-point offset (clamped to the text). */
  toUnit(codePoint: number): number {
    const cp = Math.max(0, Math.min(this.length, Math.trunc(codePoint)));
    return this.units ? this.units[cp] : cp;
  }

  /**
   * Code-point offset of a UTF-16 index (clamped to the text). An index between the two
   * halves of a pair rounds down (before the character) or, with "up", after it.
   */
  toCodePoint(unit: number, round: "down" | "up" = "down"): number {
    const u = Math.max(0, Math.min(this.text.length, Math.trunc(unit)));
    const units = this.units;
    if (!units) return u;
    let lo = 0;
    let hi = this.length;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if (units[mid] <= u) lo = mid;
      else hi = mid - 1;
    }
    return units[lo] < u && round === "up" ? lo + 1 : lo;
  }

  /** The text between two code-point offsets, like Python's text[start:end]. */
  slice(start: number, end: number = this.length): string {
    return this.text.slice(this.toUnit(start), this.toUnit(end));
  }
}

// The last few texts' mappings: components slice the same document on every render.
const cache = new Map<string, TextOffsets>();
const CACHED = 8;

/** The (cached) code-point mapping of a text. */
export function offsetsOf(text: string): TextOffsets {
  let o = cache.get(text);
  if (o) {
    cache.delete(text);
  } else {
    o = new TextOffsets(text);
    if (cache.size >= CACHED) cache.delete(cache.keys().next().value as string);
  }
  cache.set(text, o);
  return o;
}

/** text[start:end] with code-point offsets (Python's slice of the same text). */
export function sliceText(text: string, start: number, end?: number): string {
  return offsetsOf(text).slice(start, end);
}

/** The text's length in code points (Python's len). */
export function textLength(text: string): number {
  return offsetsOf(text).length;
}

/** At most `max` code points of a text (never half a character). */
export function clip(text: string, max: number): string {
  return sliceText(text, 0, max);
}
