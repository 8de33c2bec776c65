import type { ChartConfiguration } from "chart.js";
import { useMemo, useRef } from "preact/hooks";
import { useBarChart } from "../../hooks/useBarChart";
import { shareChartData } from "./logic";
import type { ReportRow } from "../../types";

/** Share of judge scores 0/1/2/3 per type and method (SmartyPat's Figure 3), stacked to 100%. */
export function ScoreChart({ rows }: { rows: ReportRow[] }) {
  const data = useMemo(() => shareChartData(rows), [rows]);
  const canvas = useRef<HTMLCanvasElement>(null);

  const config = useMemo<ChartConfiguration<"bar"> | null>(() => {
    if (!rows.length) return null;
    return {
      type: "bar",
      data,
      options: {
        responsive: true,
        maintainAspectRatio: false,
        animation: false,
        scales: {
          x: { stacked: true, ticks: { autoSkip: false, maxRotation: 60, font: { size: 11 } }, grid: { display: false } },
          y: { stacked: true, min: 0, max: 100, title: { display: true, text: "% of judgements" } },
        },
        plugins: {
          legend: { position: "bottom", labels: { boxWidth: 12 } },
          tooltip: { callbacks: { label: (ctx) => `${ctx.dataset.label}: ${ctx.parsed.y}%` } },
        },
      },
    };
  }, [data]);
  const failed = useBarChart(canvas, config);

  if (!rows.length) return null;
  return (
    <section class="panel" aria-labelledby="score-chart-title" data-testid="generation-chart">
      <div class="panel-head">
        <h2 id="score-chart-title">Judge scores 0–3 per type and method</h2>
      </div>
      {failed ? (
        <p class="form-error">The chart could not load: {failed}</p>
      ) : (
        <div style={{ position: "relative", height: `${Math.max(260, 40 + rows.length * 14)}px` }}>
          <canvas ref={canvas} aria-label="Share of judge scores per type and method" role="img" />
        </div>
      )}
    </section>
  );
}
