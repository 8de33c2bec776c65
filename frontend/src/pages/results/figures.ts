// Pure helpers of the results page's figures: every figure's table and chart data, the
// rows of one profile with their groups, coverage and the neighbour tests' marks.

import { isPartial } from "../../lib/coverage";
import type { BiasRow, Coverage, Figure, ItemLeaderboard, ItemRow, NeighbourTest } from "../../types";

/** The board's profiles ("definition" when the board predates named profiles). */
export function boardProfiles(board: ItemLeaderboard): string[] {
  const named = board.profiles?.length ? board.profiles : [];
  const seen = [...new Set(board.rows.map((r) => r.profile).filter((p): p is string => !!p))];
  const all = [...named, ...seen.filter((p) => !named.includes(p))];
  return all.length ? all : ["definition"];
}

/** The rows scored under `profile`, in board order (rows without a profile: the first one's). */
export function rowsOf(board: ItemLeaderboard, profile: string): ItemRow[] {
  const first = boardProfiles(board)[0];
  return board.rows.filter((r) => (r.profile ?? first) === profile);
}

/** Index of each row that starts a new group (a different set of items) after the first. */
export function groupStarts(rows: ItemRow[]): Set<number> {
  const starts = new Set<number>();
  rows.forEach((r, i) => {
    if (i > 0 && r.group != null && r.group !== rows[i - 1].group) starts.add(i);
  });
  return starts;
}

/** "6/6 items" or "2/6 items (partial)". */
export function coverageText(c: Coverage | undefined): string {
  if (!c) return "";
  return `${c.items}/${c.of} items${c.complete ? "" : " (partial)"}`;
}

/** The tooltip of a neighbour test: what was tested, the difference, its interval and p. */
export function testText(t: NeighbourTest | undefined): string | null {
  if (!t) return null;
  if (!t.test) return `no paired test (${t.common_items} common items)`;
  const d = t.test;
  const verdict = t.significant ? "significantly different" : "not significantly different";
  return (
    `${verdict} from the next row at ${t.alpha} (paired ${d.statistic === "f1" ? "F1" : "mean"} over ${d.units} items): ` +
    `difference ${d.difference.toFixed(3)}, ${Math.round(d.confidence * 100)}% CI [${d.ci[0].toFixed(3)}, ${d.ci[1].toFixed(3)}], p = ${d.p_value.toFixed(3)}`
  );
}

export interface FigureTable {
  /** Column headers after the first (the profiles of a single figure; row · profile of a per-label one). */
  columns: { id: string; title: string }[];
  /** One line per party (single figure) or per label (per-label figure). */
  lines: { id: string; title: string; values: (number | null)[] }[];
}

/** Each row key's coverage when the row was scored on part of the items (any profile's). */
export function partialCoverage(rows: ItemRow[]): Record<string, Coverage> {
  const found: Record<string, Coverage> = {};
  for (const r of rows) if (r.coverage && isPartial(r.coverage)) found[r.key] = r.coverage;
  return found;
}

/** "name · variant", with "(2/6 items)" after a row scored on part of the items. */
function whoOf(partial: Record<string, Coverage>) {
  return (r: { row: string; name: string; variant: string }) => {
    const c = partial[r.row];
    return `${r.name} · ${r.variant}${c ? ` (${c.items}/${c.of} items)` : ""}`;
  };
}

/** The table of one figure, profiles side by side; `partial` (row key -> coverage) marks the
 *  rows scored on part of the items in their titles, so the chart shows it too. */
export function figureTable(figure: Figure, profiles: string[], partial: Record<string, Coverage> = {}): FigureTable {
  const who = whoOf(partial);
  const inOrder = profiles.filter((p) => figure.rows.some((r) => r.profile === p));
  if (figure.kind === "scalar") {
    const parties: { id: string; title: string }[] = [];
    for (const r of figure.rows) if (!parties.some((p) => p.id === r.row)) parties.push({ id: r.row, title: who(r) });
    return {
      columns: inOrder.map((p) => ({ id: p, title: p })),
      lines: parties.map((party) => ({
        ...party,
        values: inOrder.map((p) => figure.rows.find((r) => r.row === party.id && r.profile === p)?.value ?? null),
      })),
    };
  }
  const entries = inOrder.flatMap((p) => figure.rows.filter((r) => r.profile === p));
  const many = inOrder.length > 1;
  return {
    columns: entries.map((r) => ({ id: `${r.profile}:${r.row}`, title: many ? `${who(r)} (${r.profile})` : who(r) })),
    lines: figure.labels.map((label) => ({ id: label, title: label, values: entries.map((r) => r.values?.[label] ?? null) })),
  };
}

export interface FigureChart {
  labels: string[];
  datasets: { label: string; data: (number | null)[] }[];
}

/** The bar chart of a figure's table: x = the table's lines, one series per column. */
export function figureChart(table: FigureTable): FigureChart {
  return {
    labels: table.lines.map((l) => l.title),
    datasets: table.columns.map((c, i) => ({ label: c.title, data: table.lines.map((l) => l.values[i]) })),
  };
}

/** "fallacious · precision" and what the figure is on. */
export function figureTitle(figure: Figure): string {
  return `${figure.field} · ${figure.metric.replace(/_/g, " ")}`;
}

/** The key of a label-bias row: its row key, prefixed with its profile when `many` profiles. */
export function biasKey(r: BiasRow, many: boolean): string {
  return many && r.profile ? `${r.profile}:${r.row}` : r.row;
}

/** Whether a task's label-bias rows come from more than one profile. */
export function manyProfiles(rows: BiasRow[]): boolean {
  return new Set(rows.map((r) => r.profile ?? "")).size > 1;
}
