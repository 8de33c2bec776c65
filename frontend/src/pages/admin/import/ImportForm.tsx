// Choose a file and its format (CSV: its columns), then upload it as an import job.

import { useState } from "preact/hooks";
import { ErrorSummary } from "../../../components/FieldErrors";
import { FileDrop, Select, sendMultipart, submitForm } from "../../../components/form";
import { type FormErrors, NO_ERRORS, messagesFor } from "../../../lib/formErrors";
import type { CsvInspection, ImportFormat, ImportJob } from "../../../types/admin";
import { FORMATS, guessFormat } from "../shared/importJob";
import { guessIdColumn, guessTextColumn } from "../shared/csv";
import { CsvColumns } from "./CsvColumns";

const FIELD_NAMES: Record<string, string> = { file: "File", format: "Format", text_column: "Text column", id_column: "Id column" };

export function ImportForm({ projectId, disabled, onJob }: { projectId: number; disabled: boolean; onJob: (job: ImportJob) => void }) {
  const [format, setFormat] = useState<ImportFormat>("mafalda");
  const [file, setFile] = useState<File | null>(null);
  const [csv, setCsv] = useState<CsvInspection | null>(null);
  const [columns, setColumns] = useState({ text: "", id: "" });
  const [errors, setErrors] = useState<FormErrors>(NO_ERRORS);
  const [busy, setBusy] = useState<string | null>(null);

  const inspect = async (f: File) => {
    setCsv(null);
    await submitForm(() => sendMultipart(`/api/projects/${projectId}/imports/inspect/`, { file: f }), {
      setBusy: (on) => setBusy(on ? "Reading the columns…" : null),
      setErrors,
      offline: "The server cannot be reached.",
      onOk: (res) => {
        const ins = res.data as CsvInspection;
        setCsv(ins);
        setColumns({ text: guessTextColumn(ins), id: guessIdColumn(ins) });
      },
    });
  };

  const pick = (f: File | null, fmt: ImportFormat = format) => {
    setFile(f);
    setErrors(NO_ERRORS);
    setCsv(null);
    const guessed = f ? guessFormat(f.name) : null;
    const next = guessed ?? fmt;
    if (guessed) setFormat(guessed);
    if (f && next === "csv") void inspect(f);
  };

  const submit = async (e: Event) => {
    e.preventDefault();
    if (busy || disabled) return;
    if (!file) return setErrors({ fields: { file: ["Choose a file to import."] }, general: [] });
    if (format === "csv" && !columns.text) return setErrors({ fields: { text_column: ["Choose the column that holds the texts."] }, general: [] });
    const request = () =>
      sendMultipart(`/api/projects/${projectId}/imports/`, {
        file,
        format,
        text_column: format === "csv" ? columns.text : undefined,
        id_column: format === "csv" ? columns.id : undefined,
      });
    await submitForm(request, {
      setBusy: (on) => setBusy(on ? "Uploading…" : null),
      setErrors,
      offline: "The server cannot be reached; nothing was imported.",
      onOk: (res) => onJob(res.data as ImportJob),
    });
  };

  const chosen = FORMATS.find((f) => f.value === format)!;
  return (
    <form class="panel admin-section import-form" onSubmit={submit} noValidate data-testid="import-form">
      <ErrorSummary errors={errors} describe={(p) => FIELD_NAMES[p] ?? p} title="Nothing was imported:" testId="import-form-errors" />
      <div class="field-row">
        <Select
          id="import-format"
          label="Format"
          path="format"
          class="grow"
          value={format}
          onValue={(v) => {
            setFormat(v as ImportFormat);
            setCsv(null);
            if (v === "csv" && file) void inspect(file);
          }}
          options={FORMATS.map((f) => ({ value: f.value, label: f.label }))}
          messages={messagesFor(errors, "format")}
          hint={chosen.hint}
          testId="import-format"
        />
      </div>
      <FileDrop id="import-file" label="File" accept={chosen.accept} file={file} onFile={(f) => pick(f)} messages={messagesFor(errors, "file")} testId="import-file" hint="Every record is checked first: a file with any bad line imports nothing." />
      {format === "csv" && csv && (
        <CsvColumns
          inspection={csv}
          textColumn={columns.text}
          idColumn={columns.id}
          onText={(text) => setColumns((c) => ({ ...c, text }))}
          onId={(id) => setColumns((c) => ({ ...c, id }))}
          messages={{ text: messagesFor(errors, "text_column"), id: messagesFor(errors, "id_column") }}
        />
      )}
      <div class="form-actions">
        <button type="submit" class="btn primary" disabled={!!busy || disabled || !file} data-testid="import-submit">
          {busy ?? "Import"}
        </button>
        {disabled && <span class="muted small">An import of this project is running; wait for its report.</span>}
      </div>
    </form>
  );
}
