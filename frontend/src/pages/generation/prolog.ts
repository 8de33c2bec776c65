// A small Prolog tokenizer for the rule editor's highlighting (CodeMirror's stream parser
// interface): comments, quoted atoms and strings, numbers, variables, atoms, operators.

import type { StringStream } from "@codemirror/language";

export interface PrologState {
  /** Inside a block comment that started on an earlier line. */
  inComment: boolean;
}

const SYMBOLS = /^[-+*/\\^<>=~:.?@#&$]+/;

function quoted(stream: StringStream, quote: string): void {
  while (!stream.eol()) {
    const ch = stream.next();
    if (ch === "\\") stream.next();
    else if (ch === quote) {
      if (stream.peek() === quote) stream.next(); // '' inside a quoted atom
      else return;
    }
  }
}

export const prolog = {
  name: "prolog",
  startState: (): PrologState => ({ inComment: false }),
  copyState: (s: PrologState): PrologState => ({ ...s }),
  token(stream: StringStream, state: PrologState): string | null {
    if (state.inComment) {
      state.inComment = !stream.skipTo("*/");
      if (state.inComment) stream.skipToEnd();
      else stream.match("*/");
      return "comment";
    }
    if (stream.eatSpace()) return null;
    if (stream.match("%")) {
      stream.skipToEnd();
      return "comment";
    }
    if (stream.match("/*")) {
      state.inComment = true;
      return prolog.token(stream, state) ?? "comment";
    }
    const ch = stream.peek() ?? "";
    if (ch === '"' || ch === "'" || ch === "`") {
      stream.next();
      quoted(stream, ch);
      return ch === "'" ? "atom" : "string";
    }
    if (stream.match(/^0'(\\.|.)/) || stream.match(/^\d+(\.\d+)?([eE][-+]?\d+)?/)) return "number";
    if (stream.match(/^[A-Z_][A-Za-z0-9_]*/)) return "variableName";
    if (stream.match(/^[a-z][A-Za-z0-9_]*/)) return stream.peek() === "(" ? "variableName.function" : "atom";
    if (stream.match(":-") || stream.match("-->") || stream.match("->") || stream.match(SYMBOLS)) return "operator";
    if (ch === "!" || ch === ";" || ch === "|") {
      stream.next();
      return "operator";
    }
    stream.next();
    return "punctuation";
  },
  languageData: { commentTokens: { line: "%", block: { open: "/*", close: "*/" } } },
};
