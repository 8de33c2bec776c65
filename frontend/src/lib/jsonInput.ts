// Parsing a JSON textarea (a model's settings, a variant's decoding) with a clear error.

export type Parsed<T> = { ok: true; value: T } | { ok: false; error: string };

/** Line and column (1-based) of a character offset. */
export function lineColumn(text: string, offset: number): { line: number; column: number } {
  const before = text.slice(0, Math.max(0, offset));
  const lines = before.split("\n");
  return { line: lines.length, column: lines[lines.length - 1].length + 1 };
}

function describeSyntaxError(text: string, error: unknown): string {
  const raw = error instanceof Error ? error.message : String(error);
  // V8: "… in JSON at position 12" (newer versions add "(line 2 column 5)").
  const m = /at position (\d+)/.exec(raw);
  const reason = raw
    .replace(/^JSON\.parse: /, "")
    .replace(/,? ?"[^"]*"\.\.\. is not valid JSON$/, "")
    .replace(/ in JSON at position \d+( \(line \d+ column \d+\))?/, "")
    .replace(/ at line \d+ column \d+ of the JSON data$/, "")
    .trim();
  if (m) {
    const { line, column } = lineColumn(text, Number(m[1]));
    return `not valid JSON (line ${line}, column ${column}): ${reason}`;
  }
  const firefox = /at line (\d+) column (\d+)/.exec(raw);
  if (firefox) return `not valid JSON (line ${firefox[1]}, column ${firefox[2]}): ${reason}`;
  return `not valid JSON: ${reason}`;
}

/**
 * A JSON object typed into a textarea: blank is {}, anything but an object is refused with
 * a message naming the problem (`settings: not valid JSON (line 2, column 3): …`).
 */
export function parseJsonObject(text: string, what = "settings"): Parsed<Record<string, unknown>> {
  const trimmed = text.trim();
  if (!trimmed) return { ok: true, value: {} };
  let value: unknown;
  try {
    value = JSON.parse(trimmed);
  } catch (e) {
    return { ok: false, error: `${what}: ${describeSyntaxError(trimmed, e)}` };
  }
  if (value === null || typeof value !== "object" || Array.isArray(value)) {
    const got = value === null ? "null" : Array.isArray(value) ? "a list" : `a ${typeof value}`;
    return { ok: false, error: `${what}: must be a JSON object such as {"key": "value"}, not ${got}` };
  }
  return { ok: true, value: value as Record<string, unknown> };
}

/** Pretty JSON for a textarea ("" for an empty object). */
export function toJsonText(value: Record<string, unknown> | null | undefined): string {
  return value && Object.keys(value).length ? JSON.stringify(value, null, 2) : "";
}
