// Item projects: import a model's published outputs (one record per item id) as a run that
// answers one form field; it is scored at once and listed on the Results tab as imported.

import { useRef, useState } from "preact/hooks";
import { ErrorSummary } from "../../../components/FieldErrors";
import { FileDrop, Select, TextField, sendMultipart, submitForm } from "../../../components/form";
import { type FormErrors, NO_ERRORS, messagesFor } from "../../../lib/formErrors";
import { linkHandler, paths } from "../../../router";
import type { CsvInspection, ItemForm, Run } from "../../../types";
import { EMPTY_OUTPUTS, type OutputsChoice, answeredFields, buildOutputsImport, guessOutputColumns, isJsonName, skippedOf, skippedText } from "../shared/runOutputs";

/** The run the import created (the API's Run, with the form field it answers). */
type ImportedRun = Run & { field?: string; config?: unknown };

const FIELD_NAMES: Record<string, string> = { file: "File", name: "Run name", field: "Form field", id_column: "Id column", output_column: "Output column", id_prefix: "Id prefix", model_name: "Model", skip_unmatched: "Skip unmatched ids" };

export function OutputsImport({ projectId, form }: { projectId: number; form?: ItemForm | Record<string, never> }) {
  const fields = answeredFields(form);
  const [choice, setChoice] = useState<OutputsChoice>({ ...EMPTY_OUTPUTS, field: fields[0]?.value ?? "" });
  const [csv, setCsv] = useState<CsvInspection | null>(null);
  const [errors, setErrors] = useState<FormErrors>(NO_ERRORS);
  const [busy, setBusy] = useState<string | null>(null);
  const [imported, setImported] = useState<ImportedRun | null>(null);
  const latestInspection = useRef(0);
  const set = (part: Partial<OutputsChoice>) => setChoice((c) => ({ ...c, ...part }));

  const pick = async (file: File | null) => {
    set({ file, idColumn: "", outputColumn: "" });
    setCsv(null);
    setErrors(NO_ERRORS);
    setImported(null);
    const ticket = ++latestInspection.current;
    if (!file || isJsonName(file.name)) return;
    const current = () => ticket === latestInspection.current;
    await submitForm(() => sendMultipart(`/api/projects/${projectId}/imports/inspect/`, { file }), {
      setBusy: (on) => current() && setBusy(on ? "Reading the columns…" : null),
      setErrors: (e) => current() && setErrors(e),
      offline: "The server cannot be reached.",
      onOk: (res) => {
        if (!current()) return;
        const inspection = res.data as CsvInspection;
        setCsv(inspection);
        set(guessOutputColumns(inspection));
      },
    });
  };

  const submit = async (e: Event) => {
    e.preventDefault();
    if (busy) return;
    const built = buildOutputsImport(choice);
    if (!built.body) return setErrors(built.errors);
    const body = built.body;
    await submitForm(() => sendMultipart(`/api/evaluation/projects/${projectId}/run-imports/`, body), {
      setBusy: (on) => setBusy(on ? "Importing and scoring…" : null),
      setErrors,
      offline: "The server cannot be reached; nothing was imported.",
      onOk: (res) => {
        setImported((res.data as { run: ImportedRun }).run);
        setChoice({ ...EMPTY_OUTPUTS, field: choice.field });
        setCsv(null);
      },
    });
  };

  const columns = (csv?.columns ?? []).map((c) => ({ value: c, label: c }));
  return (
    <form class="panel admin-section import-form" onSubmit={submit} noValidate data-testid="outputs-import-form" aria-labelledby="outputs-title">
      <h2 id="outputs-title" class="subhead-lg">
        Import model outputs
      </h2>
      <p class="muted small">
        A model's published answers, one record per item: JSON Lines <code>{'{"id": …, "output": …}'}</code>, a JSON array of them, or CSV with an id and an output column. The ids are those the items were imported with. The run is marked imported, read by the field's parser, scored, and listed on the Results tab. SmartyPat's published outputs: take whole records, add the benign file as a second file with the id prefix <code>good-</code>.
      </p>
      <ErrorSummary errors={errors} describe={(p) => FIELD_NAMES[p] ?? p} title="Nothing was imported:" testId="outputs-import-errors" />
      {fields.length === 0 ? (
        <p class="empty">The project's form has no field a model answers (only ratings).</p>
      ) : (
        <>
          <div class="field-row">
            <Select id="outputs-field" label="Form field" path="field" class="grow" value={choice.field} onValue={(field) => set({ field })} options={fields} messages={messagesFor(errors, "field")} testId="outputs-field" />
            <TextField id="outputs-name" label="Run name" path="name" class="grow" value={choice.name} onValue={(name) => set({ name })} messages={messagesFor(errors, "name")} required testId="outputs-name" />
            <TextField id="outputs-model" label="Model (optional)" path="model_name" class="grow" value={choice.modelName} onValue={(modelName) => set({ modelName })} messages={messagesFor(errors, "model_name")} testId="outputs-model" />
          </div>
          <FileDrop id="outputs-file" label="Outputs file" accept=".jsonl,.json,.ndjson,.csv,.tsv,.txt" file={choice.file} onFile={(f) => void pick(f)} messages={messagesFor(errors, "file")} required testId="outputs-file" hint="Every record is checked first: an unknown id (unless unmatched ids are skipped, below), a repeated id, or a line that cannot be read imports nothing and names the line." />
          <div class="field-row">
            <label class="check-option grow">
              <input type="checkbox" checked={!!choice.wholeRecord} onChange={(e) => set({ wholeRecord: (e.target as HTMLInputElement).checked })} data-testid="outputs-whole-record" /> The whole record is the answer (records such as{" "}
              <code>{'{"id", "logic_error", "logic_fallacies"}'}</code>)
            </label>
            <TextField id="outputs-id-prefix" label="Id prefix (optional)" path="id_prefix" class="grow" value={choice.idPrefix ?? ""} onValue={(idPrefix) => set({ idPrefix })} messages={messagesFor(errors, "id_prefix")} testId="outputs-id-prefix" />
          </div>
          <div class="field-row">
            <FileDrop id="outputs-more-file" label="Second file of the same run (optional)" accept=".jsonl,.json,.ndjson,.csv,.tsv,.txt" file={choice.moreFile ?? null} onFile={(moreFile) => set({ moreFile })} testId="outputs-more-file" hint="E.g. the benign outputs beside the bench ones; ids must not repeat across the files." />
            {choice.moreFile && <TextField id="outputs-more-prefix" label="Its id prefix" path="id_prefix" class="grow" value={choice.moreIdPrefix ?? ""} onValue={(moreIdPrefix) => set({ moreIdPrefix })} placeholder="good-" testId="outputs-more-prefix" />}
          </div>
          <label class="check-option">
            <input type="checkbox" checked={!!choice.skipUnmatched} onChange={(e) => set({ skipUnmatched: (e.target as HTMLInputElement).checked })} data-testid="outputs-skip-unmatched" /> Skip unmatched ids: import the records whose id is an item, and list those whose id matches no item (e.g. SmartyPat's benign outputs: 504 records for 502 sentences)
          </label>
          {csv && (
            <div class="field-row" data-testid="outputs-columns">
              <Select id="outputs-id-column" label="Id column" path="id_column" value={choice.idColumn} onValue={(idColumn) => set({ idColumn })} options={columns} placeholder="Choose…" messages={messagesFor(errors, "id_column")} testId="outputs-id-column" />
              <Select id="outputs-output-column" label="Output column" path="output_column" value={choice.outputColumn} onValue={(outputColumn) => set({ outputColumn })} options={columns} placeholder="Choose…" messages={messagesFor(errors, "output_column")} testId="outputs-output-column" />
            </div>
          )}
          <div class="form-actions">
            <button type="submit" class="btn primary" disabled={!!busy || !choice.file} data-testid="outputs-submit">
              {busy ?? "Import outputs"}
            </button>
          </div>
          {imported && (
            <p class="import-ok" role="status" data-testid="outputs-imported">
              Imported run{" "}
              <a href={paths.run(imported.id)} onClick={linkHandler(paths.run(imported.id))}>
                {imported.name}
              </a>{" "}
              ({imported.field}), scored:{" "}
              <a href={paths.results(projectId)} onClick={linkHandler(paths.results(projectId))}>
                see the Results tab
              </a>
              .{skippedOf(imported.config) && <span data-testid="outputs-skipped"> {skippedText(skippedOf(imported.config))}</span>}
            </p>
          )}
        </>
      )}
    </form>
  );
}
