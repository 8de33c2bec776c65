// Pure helpers of the agreement dashboard: CSV, matrices for the heatmaps.

import type { AgreementAnswer, LevelFigures } from "../../../types";

export type Cell = string | number | null | undefined;

/** A text a spreadsheet would run as a formula gets a leading `'` (as the server's exports,
 * `annotations/formats/cells.py`); numbers, and texts that are exactly a number, stay as they are. */
export function safeCell(s: string): string {
  if (/^[+-]?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?$/.test(s)) return s;
  return /^'*[=+\-@\t\r]/.test(s) ? `'${s}` : s;
}

/** RFC 4180 CSV: fields with a comma, quote or line break are quoted, quotes doubled;
 * formulas neutralised (`safeCell`). */
export function toCsv(rows: Cell[][]): string {
  const field = (v: Cell) => {
    const s = v == null ? "" : typeof v === "number" ? String(Number.isInteger(v) ? v : Number(v.toFixed(6))) : safeCell(v);
    return /[",\r\n]/.test(s) ? `"${s.replace(/"/g, '""')}"` : s;
  };
  return rows.map((r) => r.map(field).join(",")).join("\r\n") + "\r\n";
}

export interface Matrix {
  rows: string[];
  columns: string[];
  values: (number | null)[][];
}

export function names(answer: AgreementAnswer): Map<string, string> {
  const m = new Map<string, string>((answer.annotators ?? []).map((a) => [String(a.id), a.username]));
  m.set("gold", "gold");
  return m;
}

/** Annotator × annotator: pairwise α (symmetric, diagonal 1) or disjunctive F1 (rows: reference). */
export function pairMatrix(answer: AgreementAnswer, figures: LevelFigures, mode: "masi" | "jaccard" | "f1"): Matrix {
  const who = names(answer);
  const ids = (answer.annotators ?? []).map((a) => String(a.id));
  if (mode !== "f1") {
    const values = ids.map((a) =>
      ids.map((b) => {
        if (a === b) return 1;
        const e = figures.pairwise_alpha.find((p) => (String(p.a) === a && String(p.b) === b) || (String(p.a) === b && String(p.b) === a));
        return e ? e[mode] : null;
      }),
    );
    return { rows: ids.map((i) => who.get(i)!), columns: ids.map((i) => who.get(i)!), values };
  }
  const refs = figures.f1.some((r) => r.reference === "gold") ? ["gold", ...ids] : ids;
  const values = refs.map((ref) =>
    ids.map((scored) => (ref === scored ? null : figures.f1.find((r) => String(r.reference) === ref && String(r.scored) === scored)?.f1 ?? null)),
  );
  return { rows: refs.map((i) => who.get(i) ?? i), columns: ids.map((i) => who.get(i)!), values };
}

export function matrixCsv(m: Matrix, corner: string): string {
  return toCsv([[corner, ...m.columns], ...m.rows.map((r, i) => [r, ...m.values[i]])]);
}

/** Only labels that occur, for readable co-occurrence and distribution charts. */
export function usedCooccurrence(figures: LevelFigures): Matrix {
  const { labels, counts } = figures.cooccurrence;
  const keep = labels.map((_, i) => i).filter((i) => counts[i].some((c) => c > 0) || counts.some((row) => row[i] > 0));
  return { rows: keep.map((i) => labels[i]), columns: keep.map((i) => labels[i]), values: keep.map((i) => keep.map((j) => counts[i][j])) };
}

export const fmt = (v: number | null | undefined, digits = 3) => (v == null ? "—" : v.toFixed(digits));
