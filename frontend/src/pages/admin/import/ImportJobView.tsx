// One import job: its progress while it runs, then its report or every problem it found.

import { useState } from "preact/hooks";
import { ProgressBar } from "../../../components/ProgressBar";
import { formatSize } from "../../../components/form";
import type { ImportJob, ImportProblem } from "../../../types";
import { isActive, jobProgress, problemText, problemsFile, problemsFileName, reportRows, shownProblems } from "../shared/importJob";
import { annotatorLines } from "../shared/labelStudio";

/** Save every problem as a text file (built on click: the list may be long). */
function downloadProblems(problems: ImportProblem[], fileName: string): void {
  const url = URL.createObjectURL(new Blob([problemsFile(problems)], { type: "text/plain;charset=utf-8" }));
  const link = document.createElement("a");
  link.href = url;
  link.download = problemsFileName(fileName);
  document.body.appendChild(link);
  link.click();
  link.remove();
  setTimeout(() => URL.revokeObjectURL(url), 0);
}

export function ImportJobView({ job, onDismiss }: { job: ImportJob; onDismiss?: () => void }) {
  const [allProblems, setAllProblems] = useState(false);
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
    const { shown, hidden } = shownProblems(job.errors, allProblems);
    return (
      <section class="panel admin-section import-job failed" data-testid="import-failed" data-status="failed">
        {head}
        <div class="form-error error-summary" role="alert">
          <p>
            <strong data-testid="nothing-imported">Nothing was imported.</strong> {job.errors.length === 1 ? "1 problem" : `${job.errors.length} problems`} in the file; fix them and upload it again.
          </p>
          <ul class="import-errors mono-list" data-testid="import-errors">
            {shown.map((e, i) => (
              <li key={i}>{problemText(e)}</li>
            ))}
          </ul>
          <p class="problem-actions">
            {hidden > 0 && (
              <>
                <span class="muted small" data-testid="problems-hidden">
                  The first {shown.length.toLocaleString("en")} are listed; {hidden.toLocaleString("en")} more.
                </span>{" "}
                <button type="button" class="btn small" onClick={() => setAllProblems(true)} data-testid="show-all-problems">
                  Show all {job.errors.length.toLocaleString("en")} problems
                </button>{" "}
              </>
            )}
            <button type="button" class="btn ghost small" onClick={() => downloadProblems(job.errors, job.file_name)} data-testid="download-problems">
              Download every problem (.txt)
            </button>
          </p>
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
      {annotatorLines(job.report).length > 0 && (
        <ul class="ls-per-annotator" data-testid="report-per-annotator">
          {annotatorLines(job.report).map((line) => (
            <li key={line}>{line}</li>
          ))}
        </ul>
      )}
      {(job.invitations ?? []).length > 0 && (
        <div class="ls-invitations" data-testid="report-invitations">
          <p>Invitations (each link is shown only now{job.invitations!.some((i) => i.sent) ? "; e-mailed where marked" : ""}):</p>
          <ul>
            {job.invitations!.map((i) => (
              <li key={i.link}>
                {i.email}: <code>{i.link}</code>
                {i.sent ? " (e-mailed)" : ""}
              </li>
            ))}
          </ul>
        </div>
      )}
    </section>
  );
}
