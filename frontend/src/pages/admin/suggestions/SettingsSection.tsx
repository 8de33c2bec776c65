// Assistance on or off and the order of the annotators' queue (changed at once, put back
// if the server refuses).

import { useState } from "preact/hooks";
import { sendJson } from "../../../components/form";
import { LoadErrorMessage } from "../../../components/PageMessage";
import { useResource } from "../../../hooks/useResource";
import { Loading } from "../shared/AdminLayout";
import { type QueueOrdering, type SuggestionSettings, ORDERING_OPTIONS, refusals, suggestionsUrl } from "../shared/suggestions";

export function SettingsSection({ projectId }: { projectId: number }) {
  const settings = useResource<SuggestionSettings>(`${suggestionsUrl(projectId)}/settings/`);
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
      const res = await sendJson("PUT", `${suggestionsUrl(projectId)}/settings/`, patch);
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
