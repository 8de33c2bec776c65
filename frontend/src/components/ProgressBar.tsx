import { percent } from "../lib/progress";

/** A determinate progress bar (role progressbar, aria-valuenow/aria-valuemax = done/total). */
export function ProgressBar({
  done,
  total,
  label = "Documents done",
  testId,
  tone = "ok",
}: {
  done: number;
  total: number;
  label?: string;
  testId?: string;
  tone?: "ok" | "busy" | "err" | "muted";
}) {
  return (
    <div
      class={`progress tone-${tone}`}
      role="progressbar"
      aria-valuemin={0}
      aria-valuemax={total}
      aria-valuenow={done}
      aria-label={label}
      data-testid={testId}
    >
      <div class="progress-fill" style={{ width: `${percent(done, total)}%` }} />
    </div>
  );
}
