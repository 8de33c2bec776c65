import type { ChartConfiguration } from "chart.js";
import type { ComponentChildren } from "preact";
import { useEffect, useRef, useState } from "preact/hooks";
import { type Cell, toCsv } from "./data";

type ChartModule = typeof import("./charts");
let loading: Promise<ChartModule> | null = null;
const loadCharts = () => (loading ??= import("./charts"));

/** Paints the canvas white under the chart, so the PNG is not transparent. */
const whiteBackground = {
  id: "rvWhiteBackground",
  beforeDraw(chart: { ctx: CanvasRenderingContext2D; width: number; height: number }) {
    const { ctx } = chart;
    ctx.save();
    ctx.globalCompositeOperation = "destination-over";
    ctx.fillStyle = "#ffffff";
    ctx.fillRect(0, 0, chart.width, chart.height);
    ctx.restore();
  },
};

interface ChartHandle {
  options: { plugins: { title?: unknown } };
  update(mode?: string): void;
  destroy(): void;
  toBase64Image(): string;
}

const show = (c: Cell) => (c == null ? "—" : typeof c === "number" ? (Number.isInteger(c) ? c : c.toFixed(3)) : c);

function download(name: string, href: string) {
  const a = document.createElement("a");
  a.href = href;
  a.download = name;
  document.body.appendChild(a);
  a.click();
  a.remove();
}

/** A chart with its numbers in a table, downloadable as PNG (the canvas) and CSV (the table). */
export function ChartPanel(p: {
  id: string;
  title: string;
  config: ChartConfiguration | null;
  head: string[];
  rows: Cell[][];
  /** A matrix: the first cell of a row heads it; the others get data-testid `<id>-cell`
   *  with data-row / data-col (the row's head, the column's head). */
  matrix?: boolean;
  height?: number;
  /** The chart's largest width in px (a heatmap with few columns stays square-ish). */
  width?: number;
  /** Table below the chart (wide tables) instead of beside it. */
  stack?: boolean;
  /** A table without a chart: no PNG button. */
  tableOnly?: boolean;
  note?: ComponentChildren;
  children?: ComponentChildren;
}) {
  const canvas = useRef<HTMLCanvasElement>(null);
  const chart = useRef<ChartHandle | null>(null);
  const [failed, setFailed] = useState<string | null>(null);
  useEffect(() => {
    if (!canvas.current || !p.config) return;
    let live = true;
    loadCharts()
      .then(({ Chart }) => {
        if (!live || !canvas.current) return;
        const config = { ...p.config!, plugins: [...(p.config!.plugins ?? []), whiteBackground] } as ChartConfiguration;
        chart.current = new Chart(canvas.current, config) as unknown as ChartHandle;
      })
      .catch((e) => live && setFailed(String(e?.message ?? e)));
    return () => {
      live = false;
      chart.current?.destroy();
      chart.current = null;
    };
  }, [p.config]);
  const csv = () => download(`${p.id}.csv`, `data:text/csv;charset=utf-8,${encodeURIComponent(toCsv([p.head, ...p.rows]))}`);
  const png = () => {
    const c = chart.current;
    if (!c) return;
    // The image carries the panel's title; the page shows it as a heading instead.
    c.options.plugins.title = { display: true, text: p.title, font: { size: 14 } };
    c.update("none");
    const image = c.toBase64Image();
    c.options.plugins.title = { display: false };
    c.update("none");
    download(`${p.id}.png`, image);
  };
  return (
    <section class="panel rv-panel" aria-labelledby={`${p.id}-title`} data-testid={`panel-${p.id}`}>
      <div class="panel-head">
        <h2 id={`${p.id}-title`}>{p.title}</h2>
        <div class="rv-downloads">
          {p.children}
          {!p.tableOnly && (
            <button type="button" class="btn small" onClick={png} disabled={!p.config} data-testid={`${p.id}-png`} title="Download the chart as a PNG image">
              PNG
            </button>
          )}
          <button type="button" class="btn small" onClick={csv} data-testid={`${p.id}-csv`} title="Download the table as CSV">
            CSV
          </button>
        </div>
      </div>
      {p.note && <p class="muted small">{p.note}</p>}
      {failed && <p class="form-error">The chart could not be drawn: {failed}</p>}
      <div class={p.stack ? "rv-body rv-stack" : "rv-body"}>
        {p.config && (
          <div class="rv-chart" style={{ height: `${p.height ?? 300}px`, maxWidth: p.width ? `${p.width}px` : undefined }}>
            <canvas ref={canvas} role="img" aria-label={`${p.title} (the table beside it has the numbers)`} />
          </div>
        )}
        <div class="rv-table-wrap">
          <table class="data-table rv-table" data-testid={`${p.id}-table`}>
            <thead>
              <tr>
                {p.head.map((h, i) => (
                  <th key={i} scope="col">
                    {h}
                  </th>
                ))}
              </tr>
            </thead>
            <tbody>
              {p.rows.map((r, i) => (
                <tr key={i}>
                  {r.map((c, j) =>
                    p.matrix && j === 0 ? (
                      <th key={j} scope="row">
                        {c}
                      </th>
                    ) : (
                      <td key={j} class={typeof c === "number" || (p.matrix && c == null) ? "num" : undefined} {...(p.matrix ? { "data-testid": `${p.id}-cell`, "data-row": String(r[0] ?? ""), "data-col": p.head[j] } : {})}>
                        {show(c)}
                      </td>
                    ),
                  )}
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      </div>
    </section>
  );
}
