"""A small Prolog lexer, clause splitter and ground-term reader (pure Python).

Only what the rule files and the models' answers need: it never evaluates anything, and it
knows no operators beyond ``:-``, ``?-``, ``-->`` and a leading minus on a number. Terms are
read into plain Python values and written back in a canonical spelling (``quote_atom``), so
that the same fact always has the same text.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass

__all__ = [
    "Token",
    "TermError",
    "Clause",
    "tokenize",
    "split_clauses",
    "read_ground_term",
    "quote_atom",
]

SYMBOL_CHARS = "+-*/\\^<>=~:.?@#&$"
_NAME = re.compile(r"[a-z][A-Za-z0-9_]*")
_VAR = re.compile(r"[A-Z_][A-Za-z0-9_]*")
_NUMBER = re.compile(r"\d+(?:\.\d+)?(?:[eE][+-]?\d+)?")
_SYMBOLS = re.compile(r"[+\-*/\\^<>=~:.?@#&$]+")
_SPACE = re.compile(r"\s+")
_ESCAPES = {
    "n": "\n",
    "t": "\t",
    "r": "\r",
    "a": "\a",
    "b": "\b",
    "f": "\f",
    "v": "\v",
    "0": "\0",
    "e": "\x1b",
    "s": " ",
    "\\": "\\",
    "'": "'",
    '"': '"',
    "`": "`",
}


class TermError(ValueError):
    """Text that is not what the reader accepts; ``line`` is 1-based (0: unknown)."""

    def __init__(self, message: str, *, line: int = 0) -> None:
        super().__init__(message)
        self.line = line


@dataclass(frozen=True)
class Token:
    """``kind``: name, var, number, qatom, string, bq, symbol, punct, end."""

    kind: str
    text: str
    value: object
    line: int
    start: int
    end: int
    functional: bool = False  # a name or quoted atom directly followed by "("


@dataclass(frozen=True)
class Clause:
    """One clause: its tokens (without the end token), source text and first line."""

    tokens: tuple[Token, ...]
    text: str
    line: int


def _read_quoted(source: str, pos: int, line: int) -> tuple[str, int]:
    """Read a quoted item starting at ``source[pos]`` (the quote); (value, end)."""
    quote = source[pos]
    out: list[str] = []
    i = pos + 1
    n = len(source)
    while i < n:
        ch = source[i]
        if ch == quote:
            if i + 1 < n and source[i + 1] == quote:  # doubled quote
                out.append(quote)
                i += 2
                continue
            return "".join(out), i + 1
        if ch == "\n":
            raise TermError("unterminated quoted item", line=line)
        if ch == "\\":
            if i + 1 >= n:
                break
            esc = source[i + 1]
            if esc in _ESCAPES:
                out.append(_ESCAPES[esc])
                i += 2
            elif esc == "x" or esc.isdigit():
                m = re.compile(r"x([0-9a-fA-F]+)\\|([0-7]+)\\").match(source, i + 1)
                if not m:
                    raise TermError(f"bad escape \\{esc}", line=line)
                code = int(m.group(1), 16) if m.group(1) else int(m.group(2), 8)
                if code > 0x10FFFF:
                    raise TermError("character code out of range", line=line)
                out.append(chr(code))
                i = m.end()
            else:
                raise TermError(f"bad escape \\{esc}", line=line)
            continue
        out.append(ch)
        i += 1
    raise TermError("unterminated quoted item", line=line)


def _read_number(source: str, pos: int, line: int) -> tuple[int | float, int]:
    """Read a number starting at ``source[pos]`` (a digit; ``0'c`` is c's code); (value, end)."""
    if source.startswith("0'", pos) and pos + 2 < len(source):
        return ord(source[pos + 2]), pos + 3
    m = _NUMBER.match(source, pos)
    text = m.group()
    value = float(text) if ("." in text or "e" in text or "E" in text) else int(text)
    if isinstance(value, float) and not math.isfinite(value):
        raise TermError("number out of range", line=line)
    return value, m.end()


def tokenize(source: str, *, first_line: int = 1) -> list[Token]:
    """Tokens of ``source``; comments and layout are skipped."""
    tokens: list[Token] = []
    pos, line, n = 0, first_line, len(source)
    while pos < n:
        ch = source[pos]
        if ch.isspace():
            m = _SPACE.match(source, pos)
            line += m.group().count("\n")
            pos = m.end()
            continue
        if ch == "%":
            nl = source.find("\n", pos)
            pos = n if nl < 0 else nl
            continue
        if source.startswith("/*", pos):
            close = source.find("*/", pos + 2)
            if close < 0:
                raise TermError("unterminated /* comment", line=line)
            line += source.count("\n", pos, close)
            pos = close + 2
            continue
        start = pos
        value: object
        if ch.isdigit():
            value, pos = _read_number(source, pos, line)
            kind = "number"
        elif ch in "'\"`":
            value, pos = _read_quoted(source, pos, line)
            kind = {"'": "qatom", '"': "string", "`": "bq"}[ch]
        elif _NAME.match(source, pos):
            m = _NAME.match(source, pos)
            value, pos, kind = m.group(), m.end(), "name"
        elif _VAR.match(source, pos):
            m = _VAR.match(source, pos)
            value, pos, kind = m.group(), m.end(), "var"
        elif ch in SYMBOL_CHARS:
            m = _SYMBOLS.match(source, pos)
            text = m.group()
            after = m.end()
            if text == "." and (after >= n or source[after].isspace() or source[after] == "%"):
                value, pos, kind = ".", after, "end"
            else:
                value, pos, kind = text, after, "symbol"
        elif ch in "()[]{},|":
            value, pos, kind = ch, pos + 1, "punct"
        elif ch in "!;":
            value, pos, kind = ch, pos + 1, "name"
        else:
            raise TermError(f"unexpected character {ch!r}", line=line)
        functional = kind in ("name", "qatom", "symbol") and pos < n and source[pos] == "("
        tokens.append(Token(kind, source[start:pos], value, line, start, pos, functional))
    return tokens


def split_clauses(source: str, *, first_line: int = 1) -> tuple[list[Clause], list[Token]]:
    """Clauses of ``source`` and the tokens left after the last end token."""
    clauses: list[Clause] = []
    current: list[Token] = []
    for token in tokenize(source, first_line=first_line):
        if token.kind == "end":
            if not current:
                raise TermError("a lone full stop", line=token.line)
            text = source[current[0].start : token.end]
            clauses.append(Clause(tuple(current), text, current[0].line))
            current = []
        else:
            current.append(token)
    return clauses, current


def quote_atom(value: str) -> str:
    """An atom as ``writeq`` would spell it (bare when it can be)."""
    if _NAME.fullmatch(value) or value in ("[]", "!", ";", "{}"):
        return value
    if value and all(c in SYMBOL_CHARS for c in value):
        return value
    return _quote(value, "'")


def _quote(value: str, quote: str) -> str:
    out = [quote]
    for ch in value:
        if ch == "\\":
            out.append("\\\\")
        elif ch == quote:
            out.append("\\" + quote)
        elif ch == "\n":
            out.append("\\n")
        elif ch == "\t":
            out.append("\\t")
        elif ord(ch) < 32 or ord(ch) == 127:
            out.append(f"\\x{ord(ch):x}\\")
        else:
            out.append(ch)
    out.append(quote)
    return "".join(out)


def _number_text(value: int | float) -> str:
    if isinstance(value, int):
        return str(value)
    text = repr(value)
    if "e" in text and "." not in text.split("e")[0]:
        mantissa, exponent = text.split("e")
        text = f"{mantissa}.0e{exponent}"
    return text


def read_ground_term(tokens: list[Token] | tuple[Token, ...], *, max_depth: int) -> str:
    """Read ``tokens`` as one ground term and return its canonical text.

    Accepts atoms, quoted atoms, numbers (with a leading minus), strings, compound terms
    and proper lists, nested at most ``max_depth`` deep (an atom is depth 1, ``f(a)`` 2).
    Raises ``TermError`` on variables, operators or anything else.
    """
    text, end = _read(tokens, 0, max_depth)
    if end != len(tokens):
        raise TermError(f"unexpected {tokens[end].text!r} after the term", line=tokens[end].line)
    return text


def _read(tokens, i: int, depth: int) -> tuple[str, int]:
    if i >= len(tokens):
        line = tokens[-1].line if tokens else 0
        raise TermError("incomplete term", line=line)
    if depth <= 0:
        raise TermError("term nested too deeply", line=tokens[i].line)
    tok = tokens[i]
    if tok.kind == "var":
        raise TermError(f"variable {tok.text}", line=tok.line)
    if tok.kind == "number":
        return _number_text(tok.value), i + 1
    if tok.kind == "symbol" and tok.value == "-" and i + 1 < len(tokens):
        nxt = tokens[i + 1]
        if nxt.kind == "number" and nxt.start == tok.end:
            return _number_text(-nxt.value), i + 2
    if tok.kind == "string":
        return _quote(tok.value, '"'), i + 1
    if tok.kind == "punct" and tok.value == "[":
        return _read_args(tokens, i + 1, depth, "]", "[", "]")
    if tok.kind in ("name", "qatom"):
        name = quote_atom(tok.value)
        if tok.functional:
            return _read_args(tokens, i + 2, depth, ")", name + "(", ")")
        if i + 1 < len(tokens) and tokens[i + 1].kind == "punct" and tokens[i + 1].value == "(":
            raise TermError(f"space between {tok.text} and its arguments", line=tok.line)
        return name, i + 1
    if tok.kind == "symbol":
        raise TermError(f"operator {tok.text!r} is not allowed in a fact", line=tok.line)
    raise TermError(f"unexpected {tok.text!r}", line=tok.line)


def _read_args(tokens, i: int, depth: int, close: str, opening: str, closing: str):
    if close == "]" and i < len(tokens) and tokens[i].text == "]":
        return "[]", i + 1
    parts: list[str] = []
    while True:
        part, i = _read(tokens, i, depth - 1)
        parts.append(part)
        if i >= len(tokens):
            raise TermError(f"missing {close!r}", line=tokens[-1].line)
        tok = tokens[i]
        if tok.kind == "punct" and tok.value == ",":
            i += 1
            continue
        if tok.kind == "punct" and tok.value == close:
            return opening + ",".join(parts) + closing, i + 1
        raise TermError(f"unexpected {tok.text!r} in arguments", line=tok.line)
