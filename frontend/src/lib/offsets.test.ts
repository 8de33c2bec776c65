import { describe, expect, it } from "vitest";
import { clip, offsetsOf, sliceText, TextOffsets, textLength } from "./offsets";

// Code-point offsets below are what Python gives for the same text (len, str.find).
const FAMILY = "\u{1F469}\u200D\u{1F469}\u200D\u{1F467}"; // 👩‍👩‍👧: 5 code points, 8 units
const FLAG = "\u{1F1EB}\u{1F1F7}"; // 🇫🇷: 2 regional indicators, 4 units
const TEXT =
  "😀😀😀😀 Emoji first sentence here. " +
  `${FAMILY} and ${FLAG} next. ` +
  "Cafe\u0301 e\u0301. " + // combining acute accents: one code point, one unit each
  "مرحبا بالعالم. שלום עולם. " + // right-to-left, BMP
  "𝐀𝐁𝐂 end."; // U+1D400..U+1D402, mathematical bold capitals

// [word, Python start, Python end, UTF-16 start]
const PLACES: [string, number, number, number][] = [
  ["Emoji", 5, 10, 9],
  [FAMILY, 32, 37, 36],
  [" and", 37, 41, 44],
  [FLAG, 42, 44, 49],
  ["Cafe", 51, 55, 60],
  ["مرحبا", 61, 66, 70],
  ["שלום", 76, 80, 85],
  ["𝐀𝐁𝐂", 87, 90, 96],
  [" end.", 90, 95, 102],
];

describe("TextOffsets", () => {
  const o = new TextOffsets(TEXT);

  it("counts code points as Python does", () => {
    expect(TEXT.length).toBe(107);
    expect(o.length).toBe(95);
    expect(textLength(TEXT)).toBe(95);
    expect(o.length).toBe([...TEXT].length);
  });

  it.each(PLACES)("slices %s at Python's offsets", (word, start, end, unit) => {
    expect(o.slice(start, end)).toBe(word);
    expect(o.toUnit(start)).toBe(unit);
    expect(o.toCodePoint(unit)).toBe(start);
    expect(o.toCodePoint(o.toUnit(end))).toBe(end);
  });

  it("shows the first sentence exactly, not shifted by the emoji", () => {
    expect(o.slice(0, 31)).toBe("😀😀😀😀 Emoji first sentence here.");
    expect(TEXT.slice(0, 31)).toBe("😀😀😀😀 Emoji first sentence h"); // what slicing units showed
  });

  it("round-trips every code point and agrees with Array.from", () => {
    const chars = Array.from(TEXT);
    for (let cp = 0; cp <= o.length; cp++) {
      expect(o.toCodePoint(o.toUnit(cp))).toBe(cp);
      expect(o.slice(cp)).toBe(chars.slice(cp).join(""));
      expect(o.slice(0, cp)).toBe(chars.slice(0, cp).join(""));
    }
  });

  it("never splits a surrogate pair: a unit inside one rounds down or up", () => {
    const inside = o.toUnit(87) + 1; // between the halves of 𝐀
    expect(o.toCodePoint(inside)).toBe(87);
    expect(o.toCodePoint(inside, "up")).toBe(88);
    expect(o.toCodePoint(o.toUnit(87), "up")).toBe(87); // on a boundary: itself
  });

  it("may cut inside a ZWJ sequence or a flag, as Python's offsets may", () => {
    expect(o.slice(32, 33)).toBe("\u{1F469}");
    expect(o.slice(33, 37)).toBe("\u200D\u{1F469}\u200D\u{1F467}");
    expect(o.slice(42, 43)).toBe("\u{1F1EB}");
  });

  it("keeps combining marks as their own code points", () => {
    const cafe = o.slice(51, 56);
    expect(cafe).toBe("Cafe\u0301");
    expect(cafe.normalize("NFC")).toBe("Café");
  });

  it("clamps offsets outside the text", () => {
    expect(o.toUnit(-3)).toBe(0);
    expect(o.toUnit(1000)).toBe(TEXT.length);
    expect(o.toCodePoint(1000)).toBe(95);
    expect(o.slice(90, 1000)).toBe(" end.");
  });

  it("is the identity on BMP-only text (right-to-left, combining marks)", () => {
    const plain = new TextOffsets("שלום עולם. مرحبا e\u0301");
    expect(plain.length).toBe(plain.text.length);
    expect(plain.toUnit(7)).toBe(7);
    expect(plain.toCodePoint(7)).toBe(7);
    expect(plain.slice(0, 4)).toBe("שלום");
  });

  it("counts a lone surrogate as one code point", () => {
    const odd = new TextOffsets("a\uD800b😀");
    expect(odd.length).toBe(4);
    expect(odd.slice(2, 4)).toBe("b😀");
  });
});

describe("helpers", () => {
  it("sliceText and offsetsOf reuse one mapping per text", () => {
    expect(offsetsOf(TEXT)).toBe(offsetsOf(TEXT));
    expect(sliceText(TEXT, 87, 90)).toBe("𝐀𝐁𝐂");
    expect(sliceText(TEXT, 90)).toBe(" end.");
  });

  it("clip keeps whole characters", () => {
    expect(clip("𝐀𝐁𝐂", 2)).toBe("𝐀𝐁");
    expect(clip("ab", 5)).toBe("ab");
  });
});
