import { useEffect, useMemo, useRef, useState } from "preact/hooks";
import { shareChartData } from "./logic";
import type { ReportRow } from "../../types";

type ChartModule = typeof import("../leaderboard/chartjs");
let loading: Promise<ChartModule> | null = null;
const loadChart = () => (loading ??= import("../leaderboard/chartjs"));

/** Share of judge scores 0/1/2/3 per type and method (SmartyPat's Figure 3), stacked to 100%. */
export function ScoreChart({ rows }: { rows: ReportRow[] }) {
  const data = useMemo(() => shareChartData(rows), [rows]);
  const canvas = useRef<HTMLCanvasElement>(null);
  const [failed, setFailed] = useState<string | null>(null);

  useEffect(() => {
    if (!canvas.current || !rows.length) return;
    let chart: { destroy: () => void } | null = null;
    let live = true;
    loadChart()
      .then(({ Chart }) => {
        if (!live || !canvas.current) return;
        chart = new Chart(canvas.current, {
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
        });
      })
      .catch((e) => live && setFailed(String(e?.message ?? e)));
    return () => {
      live = false;
      chart?.destroy();
    };
  }, [data]);

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
