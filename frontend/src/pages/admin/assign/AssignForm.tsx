// "Each document to N annotators": choose annotators, N and which documents; the server tops
// each document up, balanced, never twice the same annotator.

import { useState } from "preact/hooks";
import { ErrorSummary, FieldError } from "../../../components/FieldErrors";
import { NumberField, TextField, sendJson, submitForm } from "../../../components/form";
import { type FormErrors, NO_ERRORS, messagesFor } from "../../../lib/formErrors";
import type { AssignResult, DocumentScope } from "../../../types/admin";
import { type AssignForm as Form, buildAssign } from "../shared/assignForm";
import { searchDocumentIds } from "./searchIds";

const FIELDS: Record<string, string> = { annotators: "Annotators", per_document: "Annotators per document", documents: "Documents", sample_size: "Sample size", seed: "Seed", document_ids: "Search" };
const SCOPES: { value: DocumentScope; label: string }[] = [
  { value: "all", label: "All documents" },
  { value: "unassigned", label: "Only unassigned documents" },
  { value: "sample", label: "A random sample" },
  { value: "selected", label: "The documents matching a search" },
];

export function AssignForm({ projectId, annotators, perDocument, onDone }: { projectId: number; annotators: { id: number; username: string }[]; perDocument: number; onDone: (r: AssignResult) => Promise<void> }) {
  const [form, setForm] = useState<Form>({ annotators: annotators.map((a) => a.id), perDocument: String(perDocument), scope: "all", sampleSize: "", seed: "", documentIds: [] });
  const [query, setQuery] = useState("");
  const [found, setFound] = useState<{ q: string; count: number } | null>(null);
  const [errors, setErrors] = useState<FormErrors>(NO_ERRORS);
  const [busy, setBusy] = useState<string | null>(null);
  const update = (patch: Partial<Form>) => setForm((f) => ({ ...f, ...patch }));
  const toggle = (id: number, on: boolean) => update({ annotators: on ? [...form.annotators.filter((x) => x !== id), id] : form.annotators.filter((x) => x !== id) });

  const search = async () => {
    setBusy("Searching…");
    try {
      const r = await searchDocumentIds(projectId, query.trim());
      update({ documentIds: r.ids });
      setFound({ q: query.trim(), count: r.ids.length });
    } catch (e) {
      setErrors({ fields: { document_ids: [String((e as Error).message)] }, general: [] });
    } finally {
      setBusy(null);
    }
  };

  const submit = async (e: Event) => {
    e.preventDefault();
    if (busy) return;
    const built = buildAssign(form);
    if (!built.body) return setErrors(built.errors);
    const body = built.body;
    await submitForm(() => sendJson("POST", `/api/projects/${projectId}/assignments/`, body), {
      setBusy: (on) => setBusy(on ? "Assigning…" : null),
      setErrors,
      offline: "The server cannot be reached; nothing was assigned.",
      onOk: (res) => onDone(res.data as AssignResult),
    });
  };

  const annotatorMsgs = messagesFor(errors, "annotators");
  return (
    <form class="panel admin-section" onSubmit={submit} noValidate data-testid="assign-form">
      <h2>Assign documents</h2>
      <ErrorSummary errors={errors} describe={(p) => FIELDS[p] ?? p} title="Nothing was assigned:" testId="assign-errors" />
      <fieldset class="plain-fieldset" aria-describedby={annotatorMsgs.length ? "err-annotators" : undefined}>
        <legend>Annotators</legend>
        {annotators.length === 0 ? (
          <p class="muted">The project has no annotators: add some on the Members tab first.</p>
        ) : (
          <div class="check-grid">
            {annotators.map((a) => (
              <label key={a.id} class="check">
                <input type="checkbox" checked={form.annotators.includes(a.id)} onChange={(e) => toggle(a.id, (e.target as HTMLInputElement).checked)} data-testid="assign-annotator" value={a.id} />
                {a.username}
              </label>
            ))}
          </div>
        )}
        <FieldError messages={annotatorMsgs} id="err-annotators" path="annotators" />
      </fieldset>
      <NumberField id="assign-per-document" label="Each document to N annotators" path="per_document" value={form.perDocument} onValue={(perDocument) => update({ perDocument })} messages={messagesFor(errors, "per_document")} min={1} hint="Documents that already have some get topped up." class="per-doc-input" testId="assign-per-document" />
      <fieldset class="plain-fieldset">
        <legend>Documents</legend>
        <div class="radio-list">
          {SCOPES.map((s) => (
            <label key={s.value} class="check">
              <input type="radio" name="assign-scope" value={s.value} checked={form.scope === s.value} onChange={() => update({ scope: s.value })} />
              {s.label}
            </label>
          ))}
        </div>
        {form.scope === "sample" && (
          <div class="field-row indent">
            <NumberField id="assign-sample" label="Sample size" path="sample_size" value={form.sampleSize} onValue={(sampleSize) => update({ sampleSize })} messages={messagesFor(errors, "sample_size")} min={1} />
            <NumberField id="assign-seed" label="Seed (optional)" path="seed" value={form.seed} onValue={(seed) => update({ seed })} messages={messagesFor(errors, "seed")} min={0} hint="Same seed, same sample." />
          </div>
        )}
        {form.scope === "selected" && (
          <div class="field-row indent">
            <TextField id="assign-search" label="Search in text and name" path="document_ids" class="grow" value={query} onValue={setQuery} messages={messagesFor(errors, "document_ids")} />
            <div class="field field-button">
              <span aria-hidden="true">&nbsp;</span>
              <button type="button" class="btn" disabled={!!busy} onClick={() => void search()}>
                Find documents
              </button>
            </div>
            {found && (
              <p class="muted small search-found" role="status">
                {found.count} document{found.count === 1 ? "" : "s"} match “{found.q}”.
              </p>
            )}
          </div>
        )}
      </fieldset>
      <div class="form-actions">
        <button type="submit" class="btn primary" disabled={!!busy || !annotators.length} data-testid="assign-submit">
          {busy ?? "Assign"}
        </button>
      </div>
    </form>
  );
}
