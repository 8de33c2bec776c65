// One import job: its progress while it runs, then its report or every problem it found.

import { ProgressBar } from "../../../components/ProgressBar";
import { formatSize } from "../../../components/form";
import type { ImportJob } from "../../../types/admin";
import { isActive, jobProgress, problemText, reportRows } from "../shared/importJob";

export function ImportJobView({ job, onDismiss }: { job: ImportJob; onDismiss?: () => void }) {
  const head = (
    <div class="section-head">
      <h2>
        {job.file_name} <span class="muted small">({job.format}, {formatSize(job.size)})</span>
      </h2>
      {onDismiss && !isActive(job) && (
        <button type="button" class="btn ghost small" onClick={onDismiss}>
          Close
        </button>
      )}
    </div>
  );
  if (isActive(job)) {
    const p = jobProgress(job);
    return (
      <section class="panel admin-section import-job" aria-live="polite" data-testid="import-running" data-status={job.status}>
        {head}
        <div class="progress-row">
          <ProgressBar done={p.done} total={p.total || 1} label="Import progress" tone="busy" testId="import-progress" />
          <span class="progress-text">{p.text}</span>
        </div>
      </section>
    );
  }
  if (job.status === "failed") {
    return (
      <section class="panel admin-section import-job failed" data-testid="import-failed" data-status="failed">
        {head}
        <div class="form-error error-summary" role="alert">
          <p>
            <strong data-testid="nothing-imported">Nothing was imported.</strong> {job.errors.length === 1 ? "1 problem" : `${job.errors.length} problems`} in the file; fix them and upload it again.
          </p>
          <ul class="import-errors mono-list" data-testid="import-errors">
            {job.errors.map((e, i) => (
              <li key={i}>{problemText(e)}</li>
            ))}
          </ul>
        </div>
      </section>
    );
  }
  return (
    <section class="panel admin-section import-job succeeded" role="status" data-testid="import-report" data-status="succeeded">
      {head}
      <p class="import-ok">Imported.</p>
      <dl class="meta-list report-list">
        {reportRows(job.report).map((r) => (
          <div key={r.key} class="report-row" data-testid={`report-${r.key}`}>
            <dt>{r.label}</dt>
            <dd class="tabular">{r.value.toLocaleString("en")}</dd>
          </div>
        ))}
      </dl>
    </section>
  );
}
