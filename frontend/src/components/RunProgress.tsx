import { formatEta, formatThroughput, isActive, startingNote } from "../lib/format";
import type { Run } from "../types";
import { ProgressBar } from "./ProgressBar";

const TONE: Record<string, "ok" | "busy" | "err" | "muted"> = {
  running: "busy",
  scoring: "busy",
  queued: "muted",
  created: "muted",
  failed: "err",
  cancelled: "muted",
  done: "ok",
};

/** done / total of a run, with its throughput and ETA while it runs. */
export function RunProgress({
  run,
  compact = false,
}: {
  run: Pick<Run, "done" | "total" | "status" | "throughput" | "eta_seconds"> & Partial<Pick<Run, "phase">>;
  compact?: boolean;
}) {
  // Imported runs (published outputs) never generated anything: no bar to show.
  if (!run.total && !isActive(run.status))
    return (
      <span class="progress-text muted" data-testid="run-progress-text" title="Nothing was generated here (an imported run)">
        —
      </span>
    );
  const eta = formatEta(run.status, run.eta_seconds);
  const running = run.status === "running";
  const note = startingNote(run);
  return (
    <div class={`run-progress${compact ? " compact" : ""}`}>
      <ProgressBar done={run.done} total={run.total} label="Requests done" testId="run-progress" tone={TONE[run.status] ?? "ok"} />
      <span class="progress-text" data-testid="run-progress-text">
        <span class="done-total">
          {run.done} / {run.total}
        </span>
        {note ? (
          <span data-testid="run-eta"> · {note}</span>
        ) : (
          <>
            {running && run.throughput != null && <span data-testid="run-throughput"> · {formatThroughput(run.throughput)}</span>}
            {eta && <span data-testid="run-eta"> · {eta}</span>}
          </>
        )}
      </span>
    </div>
  );
}
