// Pure helpers of the generation pages (tested in logic.test.ts).

import type { ReportRow } from "../../types";

export const SCORE_COLORS = ["#c0392b", "#e67e22", "#f1c40f", "#27ae60"];

/** Stacked bars: one bar per type × method, one dataset per judge score 0..3 (shares in %). */
export function shareChartData(rows: ReportRow[]) {
  return {
    labels: rows.map((r) => `${r.type} · ${r.method}`),
    datasets: [0, 1, 2, 3].map((score) => ({
      label: `score ${score}`,
      data: rows.map((r) => Math.round((r.judge.share[String(score)] ?? 0) * 1000) / 10),
      backgroundColor: SCORE_COLORS[score],
    })),
  };
}

export function percent(value: number | null | undefined): string {
  return value == null ? "—" : `${Math.round(value * 100)}%`;
}

export function fixed(value: number | null | undefined, digits = 2): string {
  return value == null ? "—" : value.toFixed(digits);
}

/** The first "line N" a refusal names (swipl's or the parser's), for the editor to point at. */
export function refusalLine(message: string): number | null {
  const m = /\bline (\d+)\b/.exec(message);
  return m ? Number(m[1]) : null;
}

/** Every message of a 400 body ({field: [messages]}) as "field: message" lines. */
export function fieldMessages(data: unknown): string[] {
  if (!data || typeof data !== "object") return [];
  const out: string[] = [];
  for (const [field, value] of Object.entries(data as Record<string, unknown>)) {
    for (const m of Array.isArray(value) ? value : [value]) {
      if (typeof m === "string") out.push(field === "detail" || field === "non_field_errors" ? m : `${field}: ${m}`);
    }
  }
  return out;
}

/** Mean of the judge's readable scores of one item. */
export function itemMean(scores: (number | null)[]): number | null {
  const read = scores.filter((s): s is number => s != null);
  return read.length ? read.reduce((a, b) => a + b, 0) / read.length : null;
}
