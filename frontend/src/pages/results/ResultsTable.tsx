import { formatScore } from "../../lib/format";
import { linkHandler, paths } from "../../router";
import { bestPerColumn, buildColumns, cellValue, describeRow, isBest } from "./table";
import type { ItemLeaderboard, ItemRow } from "../../types";
import type { Column } from "./table";

function cellTitle(row: ItemRow, column: Column): string | undefined {
  if (column.kind !== "task") return column.about;
  const cell = row.tasks[column.key];
  if (!cell) return undefined;
  const parts = [cell.metric ?? column.metric, cell.scored != null ? `${cell.scored} items scored` : null];
  if (cell.unparseable) parts.push(`${cell.unparseable} unparseable`);
  if (cell.runs && cell.runs > 1) parts.push(`latest of ${cell.runs} runs`);
  return parts.filter(Boolean).join(" · ");
}

/** Models × prompt variants and human annotators: one figure per task, skill and overall;
 *  the best figure of each column in bold. */
export function ResultsTable({ board }: { board: ItemLeaderboard }) {
  const columns = buildColumns(board);
  const best = bestPerColumn(board.rows, columns);
  return (
    <div class="table-wrap">
      <table class="table leaderboard-table results-table" data-testid="results-table">
        <caption class="sr-only">Models, prompt variants and annotators of {board.project.name}, per task, per skill and overall</caption>
        <thead>
          <tr>
            <th scope="col" class="num">
              #
            </th>
            <th scope="col">Name</th>
            {columns.map((c) => (
              <th scope="col" class={`right col-${c.kind}`} key={c.id} title={c.about} data-column={c.id}>
                {c.title}
                {c.metric && <span class="muted metric-name">{c.metric}</span>}
                {c.kind === "skill" && <span class="muted metric-name">skill</span>}
              </th>
            ))}
          </tr>
        </thead>
        <tbody>
          {board.rows.map((r, i) => (
            <tr key={r.key} data-kind={r.kind} data-name={r.name} data-row={r.key} data-testid="results-row">
              <td class="num">{i + 1}</td>
              <th scope="row" class="lb-name">
                <span class="lb-name-line">
                  <span>{r.name}</span>
                  <span class={`badge kind-${r.kind === "human" ? "annotator" : "run"}`} data-testid="kind-badge">
                    {r.kind}
                  </span>
                </span>
                <span class="lb-about">{describeRow(r)}</span>
                {r.note && <span class="lb-about note-text">{r.note}</span>}
              </th>
              {columns.map((c) => {
                const v = cellValue(r, c);
                const run = c.kind === "task" ? r.tasks[c.key]?.run : undefined;
                const text = c.kind === "judge" ? formatScore(v) : formatScore(v, 3);
                return (
                  <td key={c.id} class={`right tabular col-${c.kind}${isBest(v, best[c.id]) ? " best" : ""}`} title={cellTitle(r, c)} data-column={c.id} data-value={v ?? ""}>
                    {run != null && v != null ? (
                      <a href={paths.run(run)} onClick={linkHandler(paths.run(run))}>
                        {text}
                      </a>
                    ) : (
                      text
                    )}
                  </td>
                );
              })}
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
