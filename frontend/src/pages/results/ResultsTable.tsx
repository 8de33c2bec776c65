import { formatScore } from "../../lib/format";
import { linkHandler, paths } from "../../router";
import { Fragment } from "preact";
import { coverageText, groupStarts, testText } from "./figures";
import { bestPerColumn, buildColumns, cellValue, columnTitle, countsForBest, describeRow, isBest, rowBadge } from "./table";
import type { ItemLeaderboard, ItemRow } from "../../types";
import type { Column } from "./table";

function cellTitle(row: ItemRow, column: Column): string | undefined {
  if (column.kind !== "task") return columnTitle(column);
  const cell = row.tasks[column.key];
  if (!cell) return undefined;
  const parts = [cell.metric ?? column.metric, cell.scored != null ? `${cell.scored} items scored` : null];
  if (cell.unparseable) parts.push(`${cell.unparseable} unparseable`);
  if (cell.runs && cell.runs > 1) parts.push(`latest of ${cell.runs} runs`);
  const tested = testText(cell.vs_next);
  if (tested) parts.push(tested);
  return parts.filter(Boolean).join(" · ");
}

/** Models × prompt variants, imported runs and human annotators of one scoring profile: one
 *  figure per task, skill and overall, the best of each column among the rows scored on
 *  every item in bold (a partial row never is). Rows scored on other
 *  items than the rows above start a new group, ranked apart; a task figure marked * differs
 *  significantly (paired test, 0.05) from the one in the next row. */
export function ResultsTable({ board, rows, profile }: { board: ItemLeaderboard; rows: ItemRow[]; profile: string }) {
  const columns = buildColumns({ ...board, rows });
  const best = bestPerColumn(rows, columns);
  const starts = groupStarts(rows);
  return (
    <div class="table-wrap">
      <table class="table leaderboard-table results-table" data-testid="results-table" data-profile={profile}>
        <caption class="sr-only">
          Models, prompt variants and annotators of {board.project.name}, per task, per skill and overall, profile {profile}
        </caption>
        <thead>
          <tr>
            <th scope="col" class="num">
              #
            </th>
            <th scope="col">Name</th>
            {columns.map((c) => (
              <th scope="col" class={`right col-${c.kind}`} key={c.id} title={columnTitle(c)} data-column={c.id}>
                {c.title}
                {c.metric && <span class="muted metric-name">{c.metric}</span>}
                {c.kind === "skill" && <span class="muted metric-name">skill</span>}
              </th>
            ))}
          </tr>
        </thead>
        <tbody>
          {rows.map((r, i) => (
            <Fragment key={r.key}>
              {starts.has(i) && (
                <tr class="group-break" data-testid="group-break">
                  <td colSpan={columns.length + 2}>Scored on other items ({coverageText(r.coverage)}): ranked apart</td>
                </tr>
              )}
            <tr data-kind={r.kind} data-name={r.name} data-row={r.key} data-profile={profile} data-group={r.group ?? ""} data-testid="results-row">
              <td class="num">{r.rank ?? i + 1}</td>
              <th scope="row" class="lb-name">
                <span class="lb-name-line">
                  <span>{r.name}</span>
                  <span class={`badge ${rowBadge(r).className}`} data-testid="kind-badge" title={rowBadge(r).title}>
                    {rowBadge(r).text}
                  </span>
                </span>
                <span class="lb-about">{describeRow(r)}</span>
                {r.coverage && (
                  <span class={`lb-about${r.coverage.complete ? "" : " note-text"}`} data-testid="coverage">
                    {coverageText(r.coverage)}
                  </span>
                )}
                {r.note && <span class="lb-about note-text">{r.note}</span>}
              </th>
              {columns.map((c) => {
                const v = cellValue(r, c);
                const run = c.kind === "task" ? r.tasks[c.key]?.run : undefined;
                const text = c.kind === "judge" ? formatScore(v) : formatScore(v, 3);
                const significant = c.kind === "task" && r.tasks[c.key]?.vs_next?.significant;
                return (
                  <td key={c.id} class={`right tabular col-${c.kind}${countsForBest(r) && isBest(v, best[c.id]) ? " best" : ""}`} title={cellTitle(r, c)} data-column={c.id} data-value={v ?? ""}>
                    {run != null && v != null ? (
                      <a href={paths.run(run)} onClick={linkHandler(paths.run(run))}>
                        {text}
                      </a>
                    ) : (
                      text
                    )}
                    {significant && (
                      <sup class="significant" data-testid="significant" aria-label="significantly different from the next row">
                        *
                      </sup>
                    )}
                  </td>
                );
              })}
            </tr>
            </Fragment>
          ))}
        </tbody>
      </table>
    </div>
  );
}
