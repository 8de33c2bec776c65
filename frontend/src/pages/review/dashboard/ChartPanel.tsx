import type { ChartConfiguration } from "chart.js";
import type { ComponentChildren } from "preact";
import { useEffect, useRef, useState } from "preact/hooks";
import { type Cell, toCsv } from "./data";

type ChartModule = typeof import("./charts");
let loading: Promise<ChartModule> | null = null;
const loadCharts = () => (loading ??= import("./charts"));

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
  height?: number;
  note?: ComponentChildren;
  children?: ComponentChildren;
}) {
  const canvas = useRef<HTMLCanvasElement>(null);
  const chart = useRef<{ destroy(): void; toBase64Image(): string } | null>(null);
  const [failed, setFailed] = useState<string | null>(null);
  useEffect(() => {
    if (!canvas.current || !p.config) return;
    let live = true;
    loadCharts()
      .then(({ Chart }) => {
        if (!live || !canvas.current) return;
        chart.current = new Chart(canvas.current, p.config!) as unknown as { destroy(): void; toBase64Image(): string };
      })
      .catch((e) => live && setFailed(String(e?.message ?? e)));
    return () => {
      live = false;
      chart.current?.destroy();
      chart.current = null;
    };
  }, [p.config]);
  const csv = () => download(`${p.id}.csv`, `data:text/csv;charset=utf-8,${encodeURIComponent(toCsv([p.head, ...p.rows]))}`);
  const png = () => chart.current && download(`${p.id}.png`, chart.current.toBase64Image());
  return (
    <section class="panel rv-panel" aria-labelledby={`${p.id}-title`} data-testid={`panel-${p.id}`}>
      <div class="panel-head">
        <h2 id={`${p.id}-title`}>{p.title}</h2>
        <div class="rv-downloads">
          {p.children}
          <button type="button" class="btn small" onClick={png} disabled={!p.config} data-testid={`${p.id}-png`}>
            PNG
          </button>
          <button type="button" class="btn small" onClick={csv} data-testid={`${p.id}-csv`}>
            CSV
          </button>
        </div>
      </div>
      {p.note && <p class="muted small">{p.note}</p>}
      {failed && <p class="form-error">The chart could not be drawn: {failed}</p>}
      <div class="rv-body">
        {p.config && (
          <div class="rv-chart" style={{ height: `${p.height ?? 300}px` }}>
            <canvas ref={canvas} role="img" aria-label={`${p.title} (the table beside it has the numbers)`} />
          </div>
        )}
        <div class="rv-table-wrap">
          <table class="data-table rv-table" data-testid={`${p.id}-table`}>
            <thead>
              <tr>
                {p.head.map((h, i) => (
                  <th key={i}>{h}</th>
                ))}
              </tr>
            </thead>
            <tbody>
              {p.rows.map((r, i) => (
                <tr key={i}>
                  {r.map((c, j) => (
                    <td key={j} class={typeof c === "number" ? "num" : undefined}>
                      {c == null ? "—" : typeof c === "number" ? (Number.isInteger(c) ? c : c.toFixed(3)) : c}
                    </td>
                  ))}
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      </div>
    </section>
  );
}
