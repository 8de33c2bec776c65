import { useState } from "preact/hooks";
import { ProgressBar } from "../../components/ProgressBar";
import type { Progress } from "../../types";
import { continueProject } from "./continueProject";
import { queueText } from "./progressText";

/** What an annotator sees above the list: their own queue, and "Continue" while work is left. */
export function MyQueue({ projectId, progress }: { projectId: number; progress: Progress }) {
  const [note, setNote] = useState<string | null>(null);
  const left = progress.total - progress.done;
  return (
    <section class="my-queue" aria-label="Your progress" data-testid="my-queue">
      <div class="progress-row">
        <ProgressBar done={progress.done} total={progress.total} label="Your documents submitted" />
        <span class="progress-text" data-testid="my-progress">
          {queueText(progress)}
        </span>
        {left > 0 && (
          <button
            class="btn primary"
            type="button"
            data-testid="continue"
            onClick={() =>
              continueProject(projectId, () => setNote("Nothing left to annotate: every document assigned to you is submitted.")).catch((e) =>
                setNote(e.message),
              )
            }
          >
            {progress.done === 0 ? "Start" : "Continue"}
          </button>
        )}
      </div>
      {note && (
        <p class="note" role="status">
          {note}
        </p>
      )}
    </section>
  );
}
