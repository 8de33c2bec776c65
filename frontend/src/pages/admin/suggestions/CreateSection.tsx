// Turning finished runs into suggestions (the service's refusals named by run).

import { useState } from "preact/hooks";
import { sendJson } from "../../../components/form";
import { LoadErrorMessage } from "../../../components/PageMessage";
import { useResource } from "../../../hooks/useResource";
import { queryString } from "../../../lib/paging";
import type { Page, Run } from "../../../types";
import { Loading } from "../shared/AdminLayout";
import { type Created, createdLines, offeredRuns, refusals, suggestionsUrl } from "../shared/suggestions";

export function CreateSection({ projectId, onCreated }: { projectId: number; onCreated: () => void }) {
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
      const res = await sendJson("POST", `${suggestionsUrl(projectId)}/`, { runs: picked });
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
                  {r.name} <span class="muted">({r.model_label || r.backend || "imported"})</span>
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
