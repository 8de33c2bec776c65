import { useState } from "preact/hooks";
import { ensureCsrf, http } from "../../api";
import { ConfirmDialog } from "../../components/form/ConfirmDialog";
import type { Run, RunDetail } from "../../types";

type Action = "cancel" | "resume" | "rescore";

const LABEL: Record<Action, string> = { cancel: "Cancel", resume: "Resume", rescore: "Rescore" };
const BUSY: Record<Action, string> = { cancel: "Cancelling…", resume: "Resuming…", rescore: "Rescoring…" };

/** Which actions a run offers (only to users who may manage it). */
export function actionsFor(run: Pick<Run, "status" | "can_manage" | "imported">): Action[] {
  if (!run.can_manage) return [];
  switch (run.status) {
    case "created":
    case "queued":
    case "running":
      return ["cancel"];
    case "failed":
    case "cancelled":
      return run.imported ? [] : ["resume"];
    case "done":
      return ["rescore"];
    default:
      return [];
  }
}

export function RunActions({ run, onChanged }: { run: RunDetail; onChanged: (r: Partial<Run>) => void }) {
  const [busy, setBusy] = useState<Action | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [confirming, setConfirming] = useState(false);
  const actions = actionsFor(run);
  if (!actions.length && !error) return null;

  const act = async (action: Action) => {
    setBusy(action);
    setError(null);
    try {
      await ensureCsrf();
      const res = await http("POST", `/api/evaluation/runs/${run.id}/${action}/`);
      if (res.status >= 200 && res.status < 300) onChanged(res.data as Run);
      else {
        const detail = (res.data as { detail?: unknown } | null)?.detail;
        setError(typeof detail === "string" ? detail : `${LABEL[action]} failed (${res.status}).`);
      }
    } catch {
      setError("The server cannot be reached.");
    } finally {
      setBusy(null);
    }
  };

  return (
    <div class="run-actions">
      {actions.map((a) => (
        <button
          key={a}
          type="button"
          class={`btn${a === "cancel" ? " danger" : a === "resume" ? " primary" : ""}`}
          disabled={busy !== null}
          onClick={() => (a === "cancel" ? setConfirming(true) : void act(a))}
          data-testid={`run-${a}`}
        >
          {busy === a ? BUSY[a] : LABEL[a]}
        </button>
      ))}
      <ConfirmDialog
        open={confirming}
        title="Cancel this run?"
        confirmLabel="Cancel the run"
        cancelLabel="Keep it running"
        danger
        busy={busy === "cancel"}
        onConfirm={() => {
          setConfirming(false);
          void act("cancel");
        }}
        onCancel={() => setConfirming(false)}
        testId="cancel-dialog"
      >
        <p>
          Requests not answered yet are not sent. What the run has answered so far is kept{run.imported ? "" : ", and Resume continues it later"}.
        </p>
      </ConfirmDialog>
      {error && (
        <p class="form-error" role="alert" data-testid="run-action-error">
          {error}
        </p>
      )}
    </div>
  );
}
