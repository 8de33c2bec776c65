// Pure helpers of the results page: the leaderboard's columns, best figures, delta marks,
// and the label-bias chart's numbers.

import { isPartial } from "../../lib/coverage";
import { helpTitle } from "../../lib/metricHelp";
import { biasKey, manyProfiles } from "./figures";
import type { Comparison, Delta, ItemLeaderboard, ItemRow, LabelBias, Mark } from "../../types";

export type ColumnKind = "task" | "judge" | "skill" | "overall";

export interface Column {
  id: string;
  kind: ColumnKind;
  title: string;
  /** The form field (task and judge columns) or the skill name. */
  key: string;
  /** The tooltip: the form's question, or what the figure is. */
  about?: string;
  /** The primary metric's name (task columns: "accuracy", "macro_f1"…). */
  metric?: string;
}

/** Tasks (plus a judge column after a free-text task when a row has a judge mean), then the
 *  skills when they group tasks differently from one skill per task, then overall (left out
 *  when no row has one: every task's figure is on another scale than 0–1). */
export function buildColumns(board: ItemLeaderboard): Column[] {
  const columns: Column[] = [];
  for (const t of board.tasks) {
    const metric = board.rows.map((r) => r.tasks[t.field]?.metric).find((m) => m);
    columns.push({ id: `task:${t.field}`, kind: "task", title: t.field, key: t.field, about: t.title, metric: metric ?? undefined });
    if (t.kind === "free-text" && board.rows.some((r) => r.tasks[t.field]?.judge)) {
      columns.push({ id: `judge:${t.field}`, kind: "judge", title: t.field, key: t.field, about: `${t.title}: the mean score of the judge runs`, metric: "judge mean" });
    }
  }
  const oneSkillPerTask = board.skills.length === board.tasks.length && board.tasks.every((t) => t.skill === t.field);
  if (!oneSkillPerTask) {
    for (const s of board.skills) columns.push({ id: `skill:${s}`, kind: "skill", title: s, key: s, about: "macro average of the skill's tasks" });
  }
  // an overall no row has (every task on another scale than 0-1) is not a column
  if (!board.rows.some((r) => r.overall != null && Number.isFinite(r.overall))) return columns;
  columns.push({
    id: "overall",
    kind: "overall",
    title: board.aggregate === "geometric" ? "Overall (geometric)" : "Overall (macro)",
    key: "overall",
    about: board.aggregate === "geometric" ? "geometric mean of the skills" : "macro average of the skills",
  });
  return columns;
}

export function cellValue(row: ItemRow, column: Column): number | null {
  const v =
    column.kind === "task"
      ? row.tasks[column.key]?.value
      : column.kind === "judge"
        ? row.tasks[column.key]?.judge?.mean
        : column.kind === "skill"
          ? row.skills[column.key]
          : row.overall;
  return v == null || !Number.isFinite(v) ? null : v;
}

/** Whether a row may be a column's best: scored on every item, and not a baseline. */
export function countsForBest(row: ItemRow): boolean {
  return !isPartial(row.coverage) && !row.baseline;
}

/** The best (highest) figure of each column among the rows scored on every item; ties are
 *  all best. A partial row (scored on part of the items) or a baseline is never the best. */
export function bestPerColumn(rows: ItemRow[], columns: Column[]): Record<string, number | null> {
  const best: Record<string, number | null> = {};
  for (const c of columns) {
    let top: number | null = null;
    for (const r of rows) {
      if (!countsForBest(r)) continue;
      const v = cellValue(r, c);
      if (v != null && (top == null || v > top)) top = v;
    }
    best[c.id] = top;
  }
  return best;
}

export function isBest(value: number | null, best: number | null): boolean {
  return value != null && best != null && Math.abs(value - best) < 1e-12;
}

export const MARKS: Record<Mark, string> = { up: "▲", down: "▼", same: "=" };

/** "+0.120", "−0.050", "±0.000" (three decimals, a real minus sign). */
export function formatDelta(delta: number): string {
  const text = Math.abs(delta).toFixed(3);
  if (text === "0.000") return "±0.000";
  return `${delta > 0 ? "+" : "−"}${text}`;
}

/** "▲ +0.120" for a delta, "—" without one. */
export function deltaText(d: Delta | null | undefined): string {
  return d ? `${MARKS[d.mark]} ${formatDelta(d.delta)}` : "—";
}

export function comparisonTitle(c: Comparison): string {
  return c.comparison === "cot-vs-direct" ? "chain-of-thought vs direct" : "few-shot vs zero-shot";
}

/** The badge of a row: "baseline" for a baseline backend's run, else its kind. */
export function rowBadge(row: ItemRow): { text: string; className: string; title?: string } {
  if (row.baseline) return { text: "baseline", className: "subtle kind-baseline", title: `A reference point, not a model (${row.backend}): never a column's best` };
  return { text: row.kind, className: row.kind === "human" ? "kind-annotator" : "kind-run" };
}

/** The tooltip of a column head: what its figure is (lib/metricHelp), else the column's own line. */
export function columnTitle(column: Column): string | undefined {
  const name = column.kind === "task" ? column.metric : column.kind === "overall" ? column.title : column.kind === "skill" ? "skill" : column.metric;
  const help = helpTitle(name);
  if (column.kind === "task" && column.about) return help ? `${column.about} · ${help}` : column.about;
  return help || column.about;
}

/** The metric and figure names a results table shows, for its legend. */
export function columnNames(columns: Column[]): string[] {
  return columns.map((c) => (c.kind === "overall" ? c.title : c.kind === "skill" ? "skill" : (c.metric ?? "")));
}

/** Every metric and figure name of a board (each profile's primary metrics, skills, overall),
 *  for the legend under its tables. */
export function boardNames(board: ItemLeaderboard): string[] {
  const metrics = board.rows.flatMap((r) => Object.values(r.tasks).map((t) => t.metric ?? ""));
  return [...metrics, ...columnNames(buildColumns(board))];
}

/** "model · backend · variant" of a row (humans: "human annotator"). */
export function describeRow(row: ItemRow): string {
  if (row.kind === "human") return "human annotator";
  return [row.backend, row.variant_label].filter(Boolean).join(" · ");
}

export interface BiasChartData {
  labels: string[];
  predicted: number[];
  gold: number[];
  /** Outputs predicted as each label, as a share of the row's predictions. */
  total: number;
  /** Gold labels counted (a ranked item has several). */
  goldTotal: number;
  /** The items the row was scored on, when the board says. */
  items?: number;
  /** Spellings (labels not the field's own) this row neither gave nor has in its key: not listed. */
  unused?: number;
}

/** Predicted vs gold counts per label for one row of a task's label-bias entry (the row's own
 *  gold counts: the items it was scored on); a spelling with no count for the row is left out
 *  and counted in `unused`. */
export function biasChartData(bias: LabelBias, rowKey: string): BiasChartData | null {
  const many = manyProfiles(bias.rows);
  const row = bias.rows.find((r) => biasKey(r, many) === rowKey);
  if (!row) return null;
  const all = bias.labels.length ? bias.labels : [...new Set([...Object.keys(row.gold), ...Object.keys(row.predicted)])];
  const spellings = new Set(bias.spellings ?? []);
  const counted = (l: string) => (row.predicted[l] ?? 0) > 0 || (row.gold[l] ?? 0) > 0;
  const labels = all.filter((l) => !spellings.has(l) || counted(l));
  const predicted = labels.map((l) => row.predicted[l] ?? 0);
  const gold = labels.map((l) => row.gold[l] ?? 0);
  const data: BiasChartData = { labels, predicted, gold, total: predicted.reduce((a, b) => a + b, 0), goldTotal: gold.reduce((a, b) => a + b, 0) };
  if (typeof row.items === "number") data.items = row.items;
  if (all.length > labels.length) data.unused = all.length - labels.length;
  return data;
}

/** The sentence under the label-bias chart: whose answers, against how many items. */
export function biasCaption(data: BiasChartData, rowName: string, variant: string, field: string): string {
  const labels = `${data.goldTotal} gold label${data.goldTotal === 1 ? "" : "s"}`;
  const key = data.items === undefined ? labels : data.items === data.goldTotal ? `the same ${data.items} items` : `the same ${data.items} items (${labels})`;
  return `How often ${rowName} (${variant}) gave each answer on ${field}, against the answer key of ${key}.`;
}
