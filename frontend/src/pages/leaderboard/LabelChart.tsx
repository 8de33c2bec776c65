import type { ChartConfiguration } from "chart.js";
import { useEffect, useMemo, useRef, useState } from "preact/hooks";
import { useBarChart } from "../../hooks/useBarChart";
import { LEVEL_NAMES } from "../../lib/format";
import { labelChartData } from "../../lib/labelChart";
import type { Leaderboard } from "../../types";

const MAX_ROWS = 8;

/** Diagonal stripes of `color` on white: the fill of a row scored on part of the gold. */
function hatch(color: string): CanvasPattern | string {
  const tile = document.createElement("canvas");
  tile.width = tile.height = 8;
  const ctx = tile.getContext("2d");
  if (!ctx) return `${color}55`;
  ctx.fillStyle = "#ffffff";
  ctx.fillRect(0, 0, 8, 8);
  ctx.strokeStyle = color;
  ctx.lineWidth = 2;
  ctx.beginPath();
  ctx.moveTo(0, 8);
  ctx.lineTo(8, 0);
  ctx.moveTo(-2, 2);
  ctx.lineTo(2, -2);
  ctx.moveTo(6, 10);
  ctx.lineTo(10, 6);
  ctx.stroke();
  return ctx.createPattern(tile, "repeat") ?? `${color}55`;
}

/** Grouped bars of per-label F1 at a level (one dataset per row, the best rows only). */
export function LabelChart({ board }: { board: Leaderboard }) {
  const levels = useMemo(() => {
    const keys = new Set([...Object.keys(board.labels ?? {}), ...board.rows.flatMap((r) => Object.keys(r.per_label ?? {}))]);
    return [...keys].sort().reverse();
  }, [board]);
  const [level, setLevel] = useState(levels.includes("2") ? "2" : levels[0] ?? "2");
  const data = useMemo(() => labelChartData(board.rows, board.labels ?? {}, level, MAX_ROWS), [board, level]);
  const canvas = useRef<HTMLCanvasElement>(null);

  useEffect(() => {
    if (!levels.includes(level) && levels.length) setLevel(levels.includes("2") ? "2" : levels[0]);
  }, [levels]);

  const config = useMemo<ChartConfiguration<"bar"> | null>(() => {
    if (!data.datasets.length) return null;
    return {
      type: "bar",
      data: {
        labels: data.labels,
        datasets: data.datasets.map((d) => ({
          label: d.label,
          data: d.data,
          backgroundColor: d.partial ? hatch(d.borderColor) : d.backgroundColor,
          borderColor: d.borderColor,
          borderWidth: d.partial ? 2 : 1,
        })),
      },
      options: {
        responsive: true,
        maintainAspectRatio: false,
        animation: false,
        interaction: { mode: "index", intersect: false },
        scales: {
          x: { ticks: { autoSkip: false, maxRotation: 60, minRotation: 0, font: { size: 11 } }, grid: { display: false } },
          y: { min: 0, max: 1, title: { display: true, text: "F1" }, ticks: { stepSize: 0.2 } },
        },
        plugins: {
          legend: { position: "bottom", labels: { boxWidth: 12, font: { size: 12 } } },
          tooltip: {
            callbacks: {
              label: (ctx) => `${ctx.dataset.label}: ${ctx.parsed.y == null ? "—" : ctx.parsed.y.toFixed(2)}`,
            },
          },
        },
      },
    };
  }, [data]);
  const failed = useBarChart(canvas, config);

  const levelName = (l: string) => `Level ${l}${LEVEL_NAMES[Number(l)] ? ` — ${LEVEL_NAMES[Number(l)]}` : ""}`;
  return (
    <section class="panel label-chart" aria-labelledby="label-chart-title" data-testid="label-chart">
      <div class="panel-head">
        <h2 id="label-chart-title">F1 per label</h2>
        {levels.length > 1 && (
          <label class="inline-field">
            <span>Level</span>
            <select value={level} onChange={(e) => setLevel((e.target as HTMLSelectElement).value)} data-testid="chart-level">
              {levels.map((l) => (
                <option key={l} value={l}>
                  {levelName(l)}
                </option>
              ))}
            </select>
          </label>
        )}
      </div>
      {data.datasets.length === 0 ? (
        <p class="muted">No per-label scores at this level.</p>
      ) : (
        <>
          <p class="muted small" data-testid="chart-note">
            {data.available > data.datasets.length
              ? `The top ${data.datasets.length} of ${data.available} rows by level-${level} F1 are shown.`
              : `${data.datasets.length === 1 ? "1 row" : `All ${data.datasets.length} rows`} by level-${level} F1.`}{" "}
            Human annotators have lighter bars.
            {data.partial > 0 && (
              <span data-testid="chart-partial">
                {" "}
                Hatched bars, named with n/N texts, are rows scored on part of the gold: not comparable with the others.
              </span>
            )}
          </p>
          {failed && <p class="form-error">The chart could not be drawn: {failed}</p>}
          <div class="chart-box" style={{ height: `${Math.max(320, 260 + data.labels.length * 4)}px` }}>
            <canvas ref={canvas} role="img" aria-label={`Bar chart: F1 per label at level ${level} for ${data.datasets.map((d) => d.label).join(", ")}`}>
              F1 per label at level {level}.
            </canvas>
          </div>
        </>
      )}
    </section>
  );
}
