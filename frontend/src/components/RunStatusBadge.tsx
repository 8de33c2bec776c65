import type { RunStatus } from "../types";
import { isActive } from "../lib/format";

const TEXT: Record<string, string> = {
  created: "Created",
  queued: "Queued",
  running: "Running",
  scoring: "Scoring",
  done: "Done",
  failed: "Failed",
  cancelled: "Cancelled",
};

/** The status of a run as a coloured pill (data-status holds the raw value). */
export function RunStatusBadge({ status, testId }: { status: RunStatus | string; testId?: string }) {
  return (
    <span class={`status-pill run-${status}`} data-status={status} data-testid={testId}>
      {isActive(status) && <span class="pulse-dot" aria-hidden="true" />}
      {TEXT[status] ?? status}
    </span>
  );
}
