// Unassign documents from an annotator, or move them to another; documents the annotator has
// already worked on are kept unless the admin confirms (the server answers 409 first).

import { useState } from "preact/hooks";
import { ErrorSummary } from "../../../components/FieldErrors";
import { ConfirmDialog, Select, TextField, isOk, sendJson } from "../../../components/form";
import { type FormErrors, NO_ERRORS, messagesFor, toFormErrors } from "../../../lib/formErrors";
import type { WorkInProgress } from "../../../types";
import { type MoveAction, type MoveForm as Form, buildMove } from "../shared/assignForm";

const FIELDS: Record<string, string> = { annotator: "Annotator", from_annotator: "From", to_annotator: "To", document_ids: "Document ids" };

export function MoveForm({ projectId, annotators, onDone }: { projectId: number; annotators: { id: number; username: string }[]; onDone: () => Promise<void> }) {
  const [form, setForm] = useState<Form>({ action: "unassign", from: "", to: "", ids: "" });
  const [errors, setErrors] = useState<FormErrors>(NO_ERRORS);
  const [busy, setBusy] = useState(false);
  const [conflict, setConflict] = useState<WorkInProgress | null>(null);
  const [result, setResult] = useState<string | null>(null);
  const update = (patch: Partial<Form>) => setForm((f) => ({ ...f, ...patch }));
  const options = annotators.map((a) => ({ value: String(a.id), label: a.username }));
  const name = (id: string) => annotators.find((a) => String(a.id) === id)?.username ?? `#${id}`;

  const send = async (force: boolean) => {
    const built = buildMove(form, force);
    if (!built.body) return setErrors(built.errors);
    setBusy(true);
    setResult(null);
    try {
      const res = await sendJson("POST", `/api/projects/${projectId}/assignments/${built.path}`, built.body);
      setConflict(null);
      if (res.status === 409) return setConflict(res.data as WorkInProgress);
      if (!isOk(res)) return setErrors(toFormErrors(res.data, res.status));
      setErrors(NO_ERRORS);
      const d = res.data as { removed?: number; moved?: number };
      setResult(form.action === "unassign" ? `Unassigned ${d.removed ?? 0} document(s) from ${name(form.from)}.` : `Moved ${d.moved ?? 0} document(s) from ${name(form.from)} to ${name(form.to)}.`);
      await onDone();
    } catch {
      setErrors({ fields: {}, general: ["The server cannot be reached; nothing changed."] });
    } finally {
      setBusy(false);
    }
  };

  const fromPath = form.action === "unassign" ? "annotator" : "from_annotator";
  return (
    <form
      class="panel admin-section"
      onSubmit={(e) => {
        e.preventDefault();
        if (!busy) void send(false);
      }}
      noValidate
      data-testid="move-form"
    >
      <h2>Unassign or reassign</h2>
      <ErrorSummary errors={errors} describe={(p) => FIELDS[p] ?? p} title="Nothing changed:" testId="move-errors" />
      <div class="field-row">
        <Select id="move-action" label="Action" path="action" value={form.action} onValue={(v) => update({ action: v as MoveAction })} options={[{ value: "unassign", label: "Unassign" }, { value: "reassign", label: "Reassign to someone else" }]} />
        <Select id="move-from" label={form.action === "unassign" ? "Annotator" : "From"} path={fromPath} value={form.from} onValue={(from) => update({ from })} options={options} placeholder="Choose…" messages={messagesFor(errors, fromPath)} />
        {form.action === "reassign" && <Select id="move-to" label="To" path="to_annotator" value={form.to} onValue={(to) => update({ to })} options={options} placeholder="Choose…" messages={messagesFor(errors, "to_annotator")} />}
        <TextField id="move-ids" label="Document ids" path="document_ids" class="grow" value={form.ids} onValue={(ids) => update({ ids })} messages={messagesFor(errors, "document_ids")} placeholder="3, 5, 7-9" hint="The ids shown in the project's document list." />
      </div>
      <div class="form-actions">
        <button type="submit" class="btn" disabled={busy} data-testid="move-submit">
          {busy ? "Working…" : form.action === "unassign" ? "Unassign" : "Reassign"}
        </button>
      </div>
      {result && (
        <p class="note" role="status" data-testid="move-result">
          {result}
        </p>
      )}
      <ConfirmDialog
        open={!!conflict}
        title="Work in progress"
        confirmLabel={form.action === "unassign" ? "Unassign anyway" : "Reassign anyway"}
        danger
        busy={busy}
        onConfirm={() => void send(true)}
        onCancel={() => setConflict(null)}
        testId="force-dialog"
      >
        <p>{conflict?.detail || `${name(form.from)} has already worked on some of these documents; their annotations stay.`}</p>
        <p>
          Documents with their work: <strong data-testid="conflict-documents">{conflict?.documents.join(", ")}</strong>.
        </p>
      </ConfirmDialog>
    </form>
  );
}
