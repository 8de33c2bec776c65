import type { ChartConfiguration } from "chart.js";
import { useMemo, useRef } from "preact/hooks";
import { useBarChart } from "../../hooks/useBarChart";
import { formatScore } from "../../lib/format";
import { figureChart, figureTable, figureTitle, partialCoverage } from "./figures";
import type { Coverage, Figure, ItemLeaderboard } from "../../types";

const COLOURS = ["#0072B2", "#E69F00", "#009E73", "#CC79A7", "#56B4E9", "#D55E00", "#F0E442", "#000000"];

/** One figure: its table (profiles side by side) and a bar chart of the same numbers. */
function FigureBlock({ figure, profiles, partial }: { figure: Figure; profiles: string[]; partial: Record<string, Coverage> }) {
  const table = useMemo(() => figureTable(figure, profiles, partial), [figure, profiles, partial]);
  const canvas = useRef<HTMLCanvasElement>(null);
  const config = useMemo<ChartConfiguration<"bar">>(() => {
    const chart = figureChart(table);
    return {
      type: "bar",
      data: {
        labels: chart.labels,
        datasets: chart.datasets.map((d, i) => ({ label: d.label, data: d.data, backgroundColor: COLOURS[i % COLOURS.length], borderWidth: 0 })),
      },
      options: {
        responsive: true,
        maintainAspectRatio: false,
        animation: false,
        scales: {
          x: { ticks: { autoSkip: false, maxRotation: 60, font: { size: 11 } }, grid: { display: false } },
          y: figure.scale === "unit" ? { min: 0, max: 1 } : {},
        },
        plugins: { legend: { position: "bottom", labels: { boxWidth: 12, font: { size: 12 } } } },
      },
    };
  }, [table, figure.scale]);
  const failed = useBarChart(canvas, config);
  const id = `${figure.field}:${figure.metric}`;
  return (
    <section class={`figure-block figure-${figure.kind}`} data-testid="figure" data-figure={id} aria-label={figureTitle(figure)}>
      <h3>
        {figureTitle(figure)}
        <span class="muted metric-name"> {figure.scale === "unit" ? "0–1 scale" : "own scale"}</span>
      </h3>
      <div class="table-wrap">
      <table class="table figure-table" data-testid="figure-table">
        <thead>
          <tr>
            <th scope="col">{figure.kind === "scalar" ? "Row" : "Label"}</th>
            {table.columns.map((c) => (
              <th scope="col" class="right no-caps" key={c.id} data-column={c.id}>
                {c.title}
              </th>
            ))}
          </tr>
        </thead>
        <tbody>
          {table.lines.map((l) => (
            <tr key={l.id} data-line={l.id}>
              <th scope="row">{l.title}</th>
              {l.values.map((v, i) => (
                <td class="right tabular" key={table.columns[i].id} data-column={table.columns[i].id} data-value={v ?? ""}>
                  {formatScore(v, 3)}
                </td>
              ))}
            </tr>
          ))}
        </tbody>
      </table>
      </div>
      {failed && <p class="form-error">The chart could not be drawn: {failed}</p>}
      <div class="chart-box" style={{ height: "220px" }}>
        <canvas ref={canvas} role="img" aria-label={`Bar chart of ${figureTitle(figure)}`} data-testid="figure-canvas" />
      </div>
    </section>
  );
}

/** Every figure the stored reports hold (detection P/R/F1, summed and mean S, top-k and
 *  per-type accuracy…), each with the profile it was scored under. */
export function FiguresPanel({ board, profiles }: { board: ItemLeaderboard; profiles: string[] }) {
  const figures = board.figures ?? [];
  const partial = useMemo(() => partialCoverage(board.rows), [board.rows]);
  if (!figures.length) return null;
  return (
    <section class="panel figures-panel" aria-labelledby="figures-title" data-testid="figures-panel">
      <div class="panel-head">
        <h2 id="figures-title">Every figure</h2>
      </div>
      <p class="muted small">
        Each figure of the stored reports, per task; columns are the scoring profiles ({profiles.join(", ")}).
        {Object.keys(partial).length > 0 && <span data-testid="figures-partial"> A row named with n/N items was scored on part of the items: not comparable with the others.</span>}
      </p>
      <div class="figure-grid">
        {figures.map((f) => (
          <FigureBlock key={`${f.field}:${f.metric}`} figure={f} profiles={profiles} partial={partial} />
        ))}
      </div>
    </section>
  );
}
