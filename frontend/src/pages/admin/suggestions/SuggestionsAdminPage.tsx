// Model suggestions for the project's annotators (project admins): assistance on or off,
// the queue's order, turning finished runs into suggestions (the service's refusals named
// by run), and the report (acceptance per run and label, time per document with and
// without suggestions).

import { useState } from "preact/hooks";
import { sendJson } from "../../../components/form";
import { LoadErrorMessage } from "../../../components/PageMessage";
import { type Resource, useResource } from "../../../hooks/useResource";
import { queryString } from "../../../lib/paging";
import type { Me, Page, Run } from "../../../types";
import { AdminLayout, Loading } from "../shared/AdminLayout";
import {
  type Created,
  type QueueOrdering,
  type SuggestionReport,
  type SuggestionSettings,
  ORDERING_OPTIONS,
  createdLines,
  formatRate,
  formatTiming,
  offeredRuns,
  refusals,
  rowsByRun,
} from "../shared/suggestions";

const base = (projectId: number) => `/api/evaluation/projects/${projectId}/suggestions`;

export function SuggestionsAdminPage({ me, projectId }: { me: Me; projectId: number }) {
  const report = useResource<SuggestionReport>(`${base(projectId)}/report/`);
  return (
    <AdminLayout
      me={me}
      projectId={projectId}
      active="suggestions"
      title="Suggestions"
      testId="suggestions-admin-page"
      intro="Finished model runs offered to annotators as suggestions they accept or reject; a suggestion is never an annotation until accepted."
    >
      <SettingsSection projectId={projectId} />
      <CreateSection projectId={projectId} onCreated={() => void report.reload()} />
      <ReportSection report={report} />
    </AdminLayout>
  );
}

function SettingsSection({ projectId }: { projectId: number }) {
  const settings = useResource<SuggestionSettings>(`${base(projectId)}/settings/`);
  const [busy, setBusy] = useState(false);
  const [message, setMessage] = useState<string | null>(null);
  const [error, setError] = useState<string | null>(null);

  const change = async (patch: Partial<SuggestionSettings>, done: string) => {
    // Shown at once (a controlled checkbox would otherwise spring back until the answer
    // comes), put back if the server refuses.
    const before = settings.data;
    if (before) settings.setData({ ...before, ...patch });
    setBusy(true);
    setMessage(null);
    try {
      const res = await sendJson("PUT", `${base(projectId)}/settings/`, patch);
      if (res.status === 200) {
        settings.setData(res.data as SuggestionSettings);
        setError(null);
        setMessage(done);
      } else {
        if (before) settings.setData(before);
        setError(refusals(res.status, res.data).join(" "));
      }
    } catch {
      if (before) settings.setData(before);
      setError("The server cannot be reached; nothing changed.");
    } finally {
      setBusy(false);
    }
  };

  let body;
  if (settings.error && !settings.data) body = <LoadErrorMessage error={settings.error} onRetry={() => void settings.reload()} />;
  else if (!settings.data) body = <Loading />;
  else {
    const s = settings.data;
    body = (
      <>
        <label class="check">
          <input
            type="checkbox"
            checked={s.assisted}
            disabled={busy}
            onChange={(e) => {
              const assisted = (e.target as HTMLInputElement).checked;
              void change({ assisted }, assisted ? "Annotators now see the suggestions." : "Annotators no longer see suggestions.");
            }}
            data-testid="assisted-toggle"
          />
          Show suggestions to annotators (assisted project)
        </label>
        <p class="muted">Leave it off for agreement studies and human baselines: annotators are then served no suggestion.</p>
        <div class="field">
          <label for="suggestion-ordering">Annotators' queue</label>
          <select
            id="suggestion-ordering"
            value={s.ordering}
            disabled={busy}
            onChange={(e) => {
              const ordering = (e.target as HTMLSelectElement).value as QueueOrdering;
              void change({ ordering }, ordering === "disagreement" ? "Documents where runs disagree now come first." : "The queue is in project order.");
            }}
            data-testid="ordering-select"
          >
            {ORDERING_OPTIONS.map((o) => (
              <option key={o.value} value={o.value}>
                {o.label}
              </option>
            ))}
          </select>
          <p class="hint muted">Disagreement: sentences where the runs made into suggestions give different types (or one suggests and another not); counted when suggestions are created. Applies to the next document and to the annotators' document list.</p>
        </div>
        <p class="muted" role="status" data-testid="settings-status">
          {message ?? ""}
        </p>
        {error && (
          <p class="form-error" role="alert" data-testid="settings-error">
            {error}
          </p>
        )}
      </>
    );
  }
  return (
    <section class="panel admin-section" aria-labelledby="assist-title" data-testid="suggestion-settings">
      <h2 id="assist-title">Assistance</h2>
      {body}
    </section>
  );
}

function CreateSection({ projectId, onCreated }: { projectId: number; onCreated: () => void }) {
  const runs = useResource<Page<Run>>(`/api/evaluation/runs/${queryString({ project: projectId, limit: 100 })}`);
  const [picked, setPicked] = useState<number[]>([]);
  const [busy, setBusy] = useState(false);
  const [errors, setErrors] = useState<string[]>([]);
  const [done, setDone] = useState<string[] | null>(null);

  const toggle = (id: number, on: boolean) => setPicked((p) => (on ? [...p.filter((x) => x !== id), id] : p.filter((x) => x !== id)));

  const create = async (e: Event) => {
    e.preventDefault();
    if (busy) return;
    if (!picked.length) return setErrors(["Choose at least one finished run."]);
    setBusy(true);
    setDone(null);
    try {
      const res = await sendJson("POST", `${base(projectId)}/`, { runs: picked });
      if (res.status === 201) {
        setErrors([]);
        setDone(createdLines(res.data as Created));
        onCreated();
      } else setErrors(refusals(res.status, res.data));
    } catch {
      setErrors(["The server cannot be reached; nothing was created."]);
    } finally {
      setBusy(false);
    }
  };

  let body;
  if (runs.error && !runs.data) body = <LoadErrorMessage error={runs.error} onRetry={() => void runs.reload()} />;
  else if (!runs.data) body = <Loading />;
  else {
    const { finished, unfinished } = offeredRuns(runs.data.results);
    body = (
      <form onSubmit={create} noValidate data-testid="create-suggestions-form">
        {finished.length === 0 ? (
          <p class="empty">No finished run yet: launch or import one on the Model runs tab.</p>
        ) : (
          <fieldset class="plain-fieldset">
            <legend>Finished runs</legend>
            <div class="check-grid">
              {finished.map((r) => (
                <label key={r.id} class="check" data-testid="run-option" data-run={r.name}>
                  <input type="checkbox" value={r.id} checked={picked.includes(r.id)} onChange={(e) => toggle(r.id, (e.target as HTMLInputElement).checked)} />
                  {r.name} <span class="muted">({r.model_name || r.backend || "imported"})</span>
                </label>
              ))}
            </div>
          </fieldset>
        )}
        {unfinished > 0 && (
          <p class="muted" data-testid="unfinished-runs">
            {unfinished} {unfinished === 1 ? "run is" : "runs are"} not finished: only finished runs suggest.
          </p>
        )}
        {errors.length > 0 && (
          <div class="form-error" role="alert" data-testid="suggestion-errors">
            <p>Nothing was created:</p>
            <ul>
              {errors.map((m) => (
                <li key={m}>{m}</li>
              ))}
            </ul>
          </div>
        )}
        {done && (
          <ul class="muted" role="status" data-testid="suggestions-created">
            {done.map((line) => (
              <li key={line}>{line}</li>
            ))}
          </ul>
        )}
        <div class="launch-bar">
          <span class="muted">{picked.length ? `${picked.length} selected` : ""}</span>
          <button type="submit" class="btn primary" disabled={busy || finished.length === 0} data-testid="create-suggestions">
            {busy ? "Creating…" : "Create suggestions"}
          </button>
        </div>
      </form>
    );
  }
  return (
    <section class="panel admin-section" aria-labelledby="create-title" data-testid="suggestion-runs">
      <h2 id="create-title">Make suggestions from runs</h2>
      <p class="muted">One suggestion per sentence whose answer names a fallacy type; creating again from the same run adds nothing.</p>
      {body}
    </section>
  );
}

function ReportSection({ report }: { report: Resource<SuggestionReport> }) {
  let body;
  if (report.error && !report.data) body = <LoadErrorMessage error={report.error} onRetry={() => void report.reload()} />;
  else if (!report.data) body = <Loading />;
  else {
    const { rows, timing } = report.data;
    body = (
      <>
        {rows.length === 0 ? (
          <p class="empty" data-testid="report-empty">
            No suggestion yet.
          </p>
        ) : (
          <div class="table-wrap">
            <table class="table compact" data-testid="report-table">
              <thead>
                <tr>
                  <th scope="col">Run</th>
                  <th scope="col">Label</th>
                  <th scope="col" class="num">Suggestions</th>
                  <th scope="col" class="num">Accepted</th>
                  <th scope="col" class="num">Rejected</th>
                  <th scope="col" class="num">Acceptance</th>
                </tr>
              </thead>
              <tbody>
                {rowsByRun(rows).flatMap((group) =>
                  group.rows.map((r, i) => (
                    <tr key={`${r.run}/${r.label}`} data-testid="report-row" data-run={r.run_name} data-label={r.label}>
                      {i === 0 && (
                        <th scope="row" rowSpan={group.rows.length}>
                          {group.name}
                        </th>
                      )}
                      <td>{r.label}</td>
                      <td class="num">{r.suggestions}</td>
                      <td class="num" data-column="accepted">
                        {r.accepted}
                      </td>
                      <td class="num" data-column="rejected">
                        {r.rejected}
                      </td>
                      <td class="num" data-column="rate">
                        {formatRate(r.acceptance_rate)}
                      </td>
                    </tr>
                  )),
                )}
              </tbody>
            </table>
          </div>
        )}
        <h3>Time per document</h3>
        <div class="table-wrap">
          <table class="table compact" data-testid="timing-table">
            <thead>
              <tr>
                <th scope="col">Annotations</th>
                <th scope="col" class="num">Submitted</th>
                <th scope="col">Mean time (median)</th>
              </tr>
            </thead>
            <tbody>
              <tr data-testid="timing-row" data-group="with">
                <th scope="row">With suggestions</th>
                <td class="num">{timing.with_suggestions.annotations}</td>
                <td>{formatTiming(timing.with_suggestions)}</td>
              </tr>
              <tr data-testid="timing-row" data-group="without">
                <th scope="row">Without suggestions</th>
                <td class="num">{timing.without_suggestions.annotations}</td>
                <td>{formatTiming(timing.without_suggestions)}</td>
              </tr>
              {timing.runs.map((r) => (
                <tr key={r.run} data-testid="timing-row" data-group={`run:${r.run_name}`}>
                  <th scope="row">With suggestions of {r.run_name}</th>
                  <td class="num">{r.annotations}</td>
                  <td>{formatTiming(r)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
        <p class="muted small" data-testid="timing-measure">
          {timing.measure}
        </p>
      </>
    );
  }
  return (
    <section class="panel admin-section" aria-labelledby="report-title" data-testid="suggestion-report">
      <div class="section-head">
        <h2 id="report-title">Report</h2>
        <button type="button" class="btn ghost small" onClick={() => void report.reload()} disabled={report.loading} data-testid="report-refresh">
          Refresh
        </button>
      </div>
      {body}
    </section>
  );
}
