import { helpFor } from "../lib/metricHelp";
import "./MetricLegend.css";

/** "What the figures mean": one short line per metric or profile name shown on the page
 *  (lib/metricHelp), unknown names left out; nothing when none is known. */
export function MetricLegend({ names, title = "What the figures mean" }: { names: (string | null | undefined)[]; title?: string }) {
  const lines = helpFor(names);
  if (lines.length === 0) return null;
  return (
    <details class="metric-legend muted small" data-testid="metric-legend" open>
      <summary>{title}</summary>
      <dl>
        {lines.map((h) => (
          <div key={h.label} data-testid="metric-help" data-metric={h.label}>
            <dt>{h.label}</dt>
            <dd>{h.text}</dd>
          </div>
        ))}
      </dl>
    </details>
  );
}
