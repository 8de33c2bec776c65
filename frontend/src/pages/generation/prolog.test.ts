import { StringStream } from "@codemirror/language";
import { describe, expect, it } from "vitest";
import { type PrologState, prolog } from "./prolog";

/** The tokens of some lines: [text, style] pairs, whitespace left out. */
function tokens(lines: string[]): [string, string | null][] {
  const state: PrologState = prolog.startState();
  const out: [string, string | null][] = [];
  for (const line of lines) {
    const stream = new StringStream(line, 4, 2);
    while (!stream.eol()) {
      const start = stream.pos;
      const style = prolog.token(stream, state);
      expect(stream.pos).toBeGreaterThan(start); // every call moves on
      if (line.slice(start, stream.pos).trim()) out.push([line.slice(start, stream.pos), style]);
      stream.start = stream.pos;
    }
  }
  return out;
}

describe("prolog tokens", () => {
  it("tells clauses' parts apart", () => {
    expect(tokens(["f(X, 'Big A', \"s\", 0'a, 12) :- \\+ g(X), !."])).toEqual([
      ["f", "variableName.function"],
      ["(", "punctuation"],
      ["X", "variableName"],
      [",", "punctuation"],
      ["'Big A'", "atom"],
      [",", "punctuation"],
      ['"s"', "string"],
      [",", "punctuation"],
      ["0'a", "number"],
      [",", "punctuation"],
      ["12", "number"],
      [")", "punctuation"],
      [":-", "operator"],
      ["\\+", "operator"],
      ["g", "variableName.function"],
      ["(", "punctuation"],
      ["X", "variableName"],
      [")", "punctuation"],
      [",", "punctuation"],
      ["!", "operator"],
      [".", "operator"],
    ]);
  });

  it("reads line comments and block comments over lines", () => {
    expect(tokens(["% a note", "a /* one", "two */ b. %! c"])).toEqual([
      ["% a note", "comment"],
      ["a", "atom"],
      ["/* one", "comment"],
      ["two */", "comment"],
      ["b", "atom"],
      [".", "operator"],
      ["%! c", "comment"],
    ]);
  });

  it("ends an unterminated quote at the line's end", () => {
    expect(tokens(["x('open"])).toEqual([
      ["x", "variableName.function"],
      ["(", "punctuation"],
      ["'open", "atom"],
    ]);
  });
});
