// A Chart.js bar chart on a canvas. Chart.js loads on demand (one chunk that every bar chart
// shares, so the rest of the app does not carry it).

import type { ChartConfiguration } from "chart.js";
import type { RefObject } from "preact";
import { useEffect, useState } from "preact/hooks";

type ChartModule = typeof import("../lib/chartjs");
let loading: Promise<ChartModule> | null = null;
const loadChart = () => (loading ??= import("../lib/chartjs"));

/**
 * Draws `config` on the canvas, again whenever `config` changes (null: nothing to draw);
 * returns why the chart could not be drawn, or null.
 */
export function useBarChart(canvas: RefObject<HTMLCanvasElement>, config: ChartConfiguration<"bar"> | null): string | null {
  const [failed, setFailed] = useState<string | null>(null);
  useEffect(() => {
    if (!canvas.current || !config) return;
    let chart: { destroy: () => void } | null = null;
    let live = true;
    loadChart()
      .then(({ Chart }) => {
        if (!live || !canvas.current) return;
        chart = new Chart(canvas.current, config);
      })
      .catch((e) => live && setFailed(String(e?.message ?? e)));
    return () => {
      live = false;
      chart?.destroy();
    };
  }, [config]);
  return failed;
}
