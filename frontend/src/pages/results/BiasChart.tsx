import type { ChartConfiguration } from "chart.js";
import { useMemo, useRef, useState } from "preact/hooks";
import { useBarChart } from "../../hooks/useBarChart";
import { biasKey, manyProfiles } from "./figures";
import { biasCaption, biasChartData } from "./table";
import type { ItemLeaderboard } from "../../types";

/** Predicted vs gold label counts of one row (a run or an annotator) on one task. */
export function BiasChart({ board }: { board: ItemLeaderboard }) {
  const tasks = board.label_bias;
  const [field, setField] = useState(tasks[0]?.field ?? "");
  const bias = tasks.find((b) => b.field === field) ?? tasks[0];
  const many = bias ? manyProfiles(bias.rows) : false;
  const [rowKey, setRowKey] = useState(bias?.rows[0] ? biasKey(bias.rows[0], many) : "");
  const row = bias?.rows.find((r) => biasKey(r, many) === rowKey) ?? bias?.rows[0];
  const data = useMemo(() => (bias && row ? biasChartData(bias, biasKey(row, many)) : null), [bias, row, many]);
  const canvas = useRef<HTMLCanvasElement>(null);

  const config = useMemo<ChartConfiguration<"bar"> | null>(() => {
    if (!data || !row) return null;
    return {
      type: "bar",
      data: {
        labels: data.labels,
        datasets: [
          { label: `Predicted (${row.name} · ${row.variant}${row.profile ? ` · ${row.profile}` : ""})`, data: data.predicted, backgroundColor: "#0072B2", borderColor: "#0072B2", borderWidth: 1 },
          { label: "Gold", data: data.gold, backgroundColor: "#E69F0099", borderColor: "#E69F00", borderWidth: 1 },
        ],
      },
      options: {
        responsive: true,
        maintainAspectRatio: false,
        animation: false,
        interaction: { mode: "index", intersect: false },
        scales: {
          x: { ticks: { autoSkip: false, maxRotation: 60, font: { size: 11 } }, grid: { display: false } },
          y: { min: 0, title: { display: true, text: "items" }, ticks: { precision: 0 } },
        },
        plugins: { legend: { position: "bottom", labels: { boxWidth: 12, font: { size: 12 } } } },
      },
    };
  }, [data, row]);
  const failed = useBarChart(canvas, config);

  const choose = (f: string) => {
    setField(f);
    const next = tasks.find((b) => b.field === f);
    const nextMany = next ? manyProfiles(next.rows) : false;
    if (next && !next.rows.some((r) => biasKey(r, nextMany) === rowKey)) setRowKey(next.rows[0] ? biasKey(next.rows[0], nextMany) : "");
  };

  return (
    <section class="panel label-chart" aria-labelledby="bias-title" data-testid="bias-chart">
      <div class="panel-head">
        <h2 id="bias-title">Label bias: predicted vs gold</h2>
        {bias && (
          <div class="head-actions">
            <label class="inline-field">
              <span>Task</span>
              <select value={bias.field} onChange={(e) => choose((e.target as HTMLSelectElement).value)} data-testid="bias-task">
                {tasks.map((b) => (
                  <option key={b.field} value={b.field}>
                    {board.tasks.find((t) => t.field === b.field)?.title ?? b.field}
                  </option>
                ))}
              </select>
            </label>
            <label class="inline-field">
              <span>Run</span>
              <select value={row ? biasKey(row, many) : ""} onChange={(e) => setRowKey((e.target as HTMLSelectElement).value)} data-testid="bias-row">
                {bias.rows.map((r) => (
                  <option key={biasKey(r, many)} value={biasKey(r, many)}>
                    {r.name} · {r.variant}
                    {many && r.profile ? ` · ${r.profile}` : ""}
                  </option>
                ))}
              </select>
            </label>
          </div>
        )}
      </div>
      {!bias || !data || !row ? (
        <p class="muted">No label counts yet.</p>
      ) : (
        <>
          <p class="muted small" data-testid="bias-caption">
            {biasCaption(data, row.name, row.variant, bias.field)}
          </p>
          {failed && <p class="form-error">The chart could not be drawn: {failed}</p>}
          <div class="chart-box" style={{ height: "320px" }}>
            <canvas ref={canvas} role="img" aria-label={`Bar chart: predicted vs gold counts per label of ${row.name} on ${bias.field}`} data-testid="bias-canvas" />
          </div>
          <table class="table bias-table" data-testid="bias-table">
            <thead>
              <tr>
                <th scope="col">Label</th>
                <th scope="col" class="right">
                  Predicted
                </th>
                <th scope="col" class="right">
                  Gold
                </th>
              </tr>
            </thead>
            <tbody>
              {data.labels.map((l, i) => (
                <tr key={l} data-label={l}>
                  <th scope="row">{l}</th>
                  <td class="right tabular" data-testid="bias-predicted">
                    {data.predicted[i]}
                  </td>
                  <td class="right tabular" data-testid="bias-gold">
                    {data.gold[i]}
                  </td>
                </tr>
              ))}
              {data.unused ? (
                <tr class="muted" data-testid="bias-unused">
                  <td colSpan={3}>
                    {data.unused} unused spelling{data.unused === 1 ? "" : "s"} (given in other rows' answers, never in this row's nor in its answer key) not listed
                  </td>
                </tr>
              ) : null}
            </tbody>
          </table>
        </>
      )}
    </section>
  );
}
