import type { SaveStatus } from "../lib/saveStatus";

export function SaveStatusBadge({ status, onRetry }: { status: SaveStatus; onRetry: () => void }) {
  let text: string;
  let cls: string;
  switch (status.state) {
    case "saved":
      text = "Saved";
      cls = "ok";
      break;
    case "saving":
      text = "Saving…";
      cls = "busy";
      break;
    case "offline":
      text = `Offline — changes kept (${status.pending})`;
      cls = "warn";
      break;
    case "retrying":
      text = `Saving… (${status.message})`;
      cls = "warn";
      break;
    default:
      text = status.message;
      cls = "err";
  }
  return (
    <div class={`save-status ${cls}`} data-save-state={status.state}>
      <span class="dot" aria-hidden="true" />
      <span role="status" aria-live="polite" aria-atomic="true">
        {text}
      </span>
      {(status.state === "offline" || status.state === "retrying" || (status.state === "error" && status.pending > 0)) && (
        <button type="button" class="btn small ghost" onClick={onRetry}>
          Retry now
        </button>
      )}
    </div>
  );
}
