// "Each document to N annotators": choose annotators, N and which documents; the server tops
// each document up, balanced, never twice the same annotator.

import { useEffect, useState } from "preact/hooks";
import { get } from "../../../api";
import { ErrorSummary, FieldError } from "../../../components/FieldErrors";
import { NumberField, sendJson, submitForm } from "../../../components/form";
import { type FormErrors, NO_ERRORS, messagesFor } from "../../../lib/formErrors";
import type { AssignResult, DocumentScope, Page } from "../../../types";
import { DocumentFilters } from "../../project/DocumentFilters";
import { DEFAULT_QUERY, type ListQuery, countUrl, isFiltered } from "../../project/query";
import { type AssignForm as Form, buildAssign, matchText } from "../shared/assignForm";

const FIELDS: Record<string, string> = { annotators: "Annotators", per_document: "Annotators per document", documents: "Documents", sample_size: "Sample size", seed: "Seed", document_ids: "Documents", filters: "Filters" };
const SCOPES: { value: DocumentScope; label: string }[] = [
  { value: "all", label: "All documents" },
  { value: "unassigned", label: "Only unassigned documents" },
  { value: "sample", label: "A random sample" },
  { value: "matching", label: "The documents matching filters (search, status, annotator, submitted)" },
];

type Annotator = { id: number; username: string };

export function AssignForm({ projectId, annotators, filterAnnotators, perDocument, onDone }: { projectId: number; annotators: Annotator[]; filterAnnotators?: Annotator[]; perDocument: number; onDone: (r: AssignResult) => Promise<void> }) {
  const [form, setForm] = useState<Form>({ annotators: annotators.map((a) => a.id), perDocument: String(perDocument), scope: "all", sampleSize: "", seed: "", documentIds: [] });
  // The document list's own search and filters; the server selects what they match.
  const [filters, setFilters] = useState<ListQuery>(DEFAULT_QUERY);
  const [match, setMatch] = useState<{ url: string; count: number | null; error?: string }>({ url: "", count: null });
  const [assigned, setAssigned] = useState(0); // recount after each assignment (statuses moved)
  const [errors, setErrors] = useState<FormErrors>(NO_ERRORS);
  const [busy, setBusy] = useState<string | null>(null);
  const update = (patch: Partial<Form>) => setForm((f) => ({ ...f, ...patch }));
  const toggle = (id: number, on: boolean) => update({ annotators: on ? [...form.annotators.filter((x) => x !== id), id] : form.annotators.filter((x) => x !== id) });

  const url = countUrl(projectId, filters);
  useEffect(() => {
    if (form.scope !== "matching") return;
    let alive = true;
    setMatch({ url, count: null });
    get<Page<unknown>>(url).then(
      (page) => alive && setMatch({ url, count: page.count }),
      (e: unknown) => alive && setMatch({ url, count: null, error: (e as Error).message }),
    );
    return () => {
      alive = false;
    };
  }, [form.scope, url, assigned]);
  const matchCount = match.url === url ? match.count : null;

  const submit = async (e: Event) => {
    e.preventDefault();
    if (busy) return;
    const built = buildAssign({ ...form, filters, matchCount });
    if (!built.body) return setErrors(built.errors);
    const body = built.body;
    await submitForm(() => sendJson("POST", `/api/projects/${projectId}/assignments/`, body), {
      setBusy: (on) => setBusy(on ? "Assigning…" : null),
      setErrors,
      offline: "The server cannot be reached; nothing was assigned.",
      onOk: async (res) => {
        setAssigned((n) => n + 1);
        await onDone(res.data as AssignResult);
      },
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
        {form.scope === "matching" && (
          // Enter in the search box must not assign: the button does.
          <div class="indent assign-filters" onKeyDown={(e) => e.key === "Enter" && (e.target as HTMLElement).tagName === "INPUT" && e.preventDefault()} data-testid="assign-filters">
            <DocumentFilters query={filters} onChange={(next) => setFilters(next)} staff annotators={filterAnnotators ?? annotators} perDocument={perDocument} pageSize={false} />
            <p class="muted small search-found" role="status" data-testid="assign-match-count" data-count={matchCount ?? ""}>
              {match.url === url && match.error ? `The matching documents could not be counted: ${match.error}` : matchText(matchCount, isFiltered(filters))}
            </p>
            <FieldError messages={messagesFor(errors, "filters", true)} id="err-filters" path="filters" />
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
