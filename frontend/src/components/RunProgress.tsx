import { useEffect, useRef, useState } from "preact/hooks";
import { type EtaAnchor, etaKey, nextAnchor, shownEta } from "../lib/eta";
import { formatEta, formatThroughput, isActive, startingNote } from "../lib/format";
import type { Run } from "../types";
import { ProgressBar } from "./ProgressBar";

type Shown = Pick<Run, "done" | "total" | "status" | "throughput" | "eta_seconds"> & Partial<Pick<Run, "phase">>;

/** A running run's ETA counted down every second from its last estimate (``lib/eta``). */
function useCountdown(run: Shown): number | null {
  const anchor = useRef<EtaAnchor | null>(null);
  const answer = useRef<Shown | null>(null);
  anchor.current = nextAnchor(anchor.current, etaKey(run), run.eta_seconds ?? null, Date.now(), answer.current !== run);
  answer.current = run;
  const [, setTick] = useState(0);
  const ticking = run.status === "running" && run.eta_seconds != null;
  useEffect(() => {
    if (!ticking) return;
    const timer = setInterval(() => setTick((t) => t + 1), 1000);
    return () => clearInterval(timer);
  }, [ticking]);
  return shownEta(anchor.current, run, Date.now());
}

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
  run: Shown;
  compact?: boolean;
}) {
  const left = useCountdown(run);
  // Imported runs (published outputs) never generated anything: no bar to show.
  if (!run.total && !isActive(run.status))
    return (
      <span class="progress-text muted" data-testid="run-progress-text" title="Nothing was generated here (an imported run)">
        —
      </span>
    );
  const eta = formatEta(run.status, left);
  const running = run.status === "running";
  const note = startingNote({ ...run, eta_seconds: left });
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
