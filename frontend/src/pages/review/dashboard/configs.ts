// Chart.js configurations of the dashboard (plain data in, configuration out).

import type { ChartConfiguration } from "chart.js";
import type { Matrix } from "./data";

/** White (low) to blue (high); grey when undefined. */
export function heat(value: number | null, max: number, min = 0): string {
  if (value == null) return "#eeeeee";
  const t = max === min ? 1 : Math.max(0, Math.min(1, (value - min) / (max - min)));
  const r = Math.round(255 - t * (255 - 37));
  const g = Math.round(255 - t * (255 - 99));
  const b = Math.round(255 - t * (255 - 235));
  return `rgb(${r},${g},${b})`;
}

/** Readable text on a heat cell: white on the darker half of the scale. */
export function ink(value: number | null, max: number, min = 0): string {
  if (value == null || max === min) return "#333333";
  return (value - min) / (max - min) > 0.55 ? "#ffffff" : "#1f2937";
}

interface CellElement {
  width: number;
  height: number;
  getCenterPoint(): { x: number; y: number };
}

/** Writes each cell's number in it when the cells are large enough to hold it. */
function cellValues(opts: { max: number; min?: number; blankZeros?: boolean }) {
  return {
    id: "rvCellValues",
    afterDatasetsDraw(chart: { ctx: CanvasRenderingContext2D; getDatasetMeta(i: number): { data: unknown[] }; data: { datasets: { data: unknown[] }[] } }) {
      const { ctx } = chart;
      const cells = chart.getDatasetMeta(0).data as CellElement[];
      const raw = chart.data.datasets[0].data as { v: number | null }[];
      ctx.save();
      ctx.textAlign = "center";
      ctx.textBaseline = "middle";
      cells.forEach((cell, i) => {
        const v = raw[i]?.v;
        if (opts.blankZeros && v === 0) return;
        const text = v == null ? "—" : Number.isInteger(v) ? String(v) : v.toFixed(2);
        const size = Math.round(Math.min(13, cell.height * 0.45));
        if (size < 8) return;
        ctx.font = `${size}px sans-serif`;
        if (ctx.measureText(text).width > cell.width - 4) return;
        ctx.fillStyle = ink(v ?? null, opts.max, opts.min ?? 0);
        const { x, y } = cell.getCenterPoint();
        ctx.fillText(text, x, y);
      });
      ctx.restore();
    },
  };
}

export function heatmapConfig(m: Matrix, opts: { max: number; min?: number; label: string; blankZeros?: boolean }): ChartConfiguration {
  const cells = m.rows.flatMap((row, i) => m.columns.map((column, j) => ({ x: column, y: row, v: m.values[i][j] })));
  const config = {
    type: "matrix",
    plugins: [cellValues(opts)],
    data: {
      datasets: [
        {
          label: opts.label,
          data: cells,
          backgroundColor: (ctx: { raw?: { v: number | null } }) => heat(ctx.raw?.v ?? null, opts.max, opts.min ?? 0),
          borderColor: "#ffffff",
          borderWidth: 1,
          width: ({ chart }: { chart: { chartArea?: { width: number } } }) => (chart.chartArea?.width ?? 0) / Math.max(1, m.columns.length) - 1,
          height: ({ chart }: { chart: { chartArea?: { height: number } } }) => (chart.chartArea?.height ?? 0) / Math.max(1, m.rows.length) - 1,
        },
      ],
    },
    options: {
      responsive: true,
      maintainAspectRatio: false,
      animation: false,
      plugins: {
        legend: { display: false },
        tooltip: {
          callbacks: {
            title: () => "",
            label: (ctx: { raw: { x: string; y: string; v: number | null } }) =>
              `${ctx.raw.y} → ${ctx.raw.x}: ${ctx.raw.v == null ? "—" : Number.isInteger(ctx.raw.v) ? ctx.raw.v : ctx.raw.v.toFixed(3)}`,
          },
        },
      },
      scales: {
        x: { type: "category", labels: m.columns, offset: true, grid: { display: false }, ticks: { autoSkip: false, maxRotation: 60 } },
        // a vertical category axis draws its first label at the bottom: list the rows bottom-up
        y: { type: "category", labels: [...m.rows].reverse(), offset: true, grid: { display: false }, ticks: { autoSkip: false } },
      },
    },
  };
  return config as unknown as ChartConfiguration;
}

const PALETTE = ["#2563eb", "#d97706", "#059669", "#dc2626", "#7c3aed", "#0891b2", "#65a30d", "#db2777"];

export function barConfig(labels: string[], datasets: { label: string; data: (number | null)[] }[], opts: { horizontal?: boolean; min?: number; max?: number; title: string }): ChartConfiguration {
  return {
    type: "bar",
    data: {
      labels,
      datasets: datasets.map((d, i) => ({ label: d.label, data: d.data, backgroundColor: PALETTE[i % PALETTE.length] })),
    },
    options: {
      indexAxis: opts.horizontal ? "y" : "x",
      responsive: true,
      maintainAspectRatio: false,
      animation: false,
      plugins: { legend: { display: datasets.length > 1, position: "bottom" } },
      scales: {
        [opts.horizontal ? "x" : "y"]: { min: opts.min, max: opts.max, title: { display: true, text: opts.title } },
        [opts.horizontal ? "y" : "x"]: { ticks: { autoSkip: false, font: { size: 11 } } },
      },
    },
  } as ChartConfiguration;
}
