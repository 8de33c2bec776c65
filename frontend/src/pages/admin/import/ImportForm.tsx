// Choose a file and its format (CSV: its columns; items: the column mapping; SmartyPat: the
// item text; Label Studio: its annotators, each mapped, and "texts only"), then upload it as
// an import job. Item projects take the item formats only.

import { useRef, useState } from "preact/hooks";
import { ErrorSummary } from "../../../components/FieldErrors";
import { FileDrop, Select, TextField, sendMultipart, submitForm } from "../../../components/form";
import { type FormErrors, NO_ERRORS, messagesFor } from "../../../lib/formErrors";
import type { CsvInspection, ImportFormat, ImportJob, ProjectKind } from "../../../types";
import { FORMATS, guessFormat } from "../shared/importJob";
import { guessIdColumn, guessTextColumn } from "../shared/csv";
import { type ItemMapping, buildItemColumns, formatsFor, guessItemMapping } from "../shared/itemForm";
import { CsvColumns } from "./CsvColumns";
import { ItemColumns } from "./ItemColumns";
import { LabelStudioChoices } from "./LabelStudioChoices";
import { type AnnotatorChoice, type LsPreview, buildAnnotatorChoices, initialChoices } from "../shared/labelStudio";

const FIELD_NAMES: Record<string, string> = { file: "File", format: "Format", text_column: "Text column", id_column: "Id column", columns: "Column mapping", set_metadata: "Metadata", texts_only: "Texts only", annotators: "Annotators" };
const NO_MAPPING: ItemMapping = { columns: {}, optionsMode: "none", optionColumns: [] };

/** Formats that need the file's columns before uploading. */
const needsColumns = (fmt: ImportFormat) => fmt === "csv" || fmt === "items";

/** SmartyPat's item text: the server's default, or a column by role. */
const SMARTYPAT_TEXT = [
  { value: "rewrite", label: "Declarative rewrite (as the paper gave the models)" },
  { value: "post", label: "Original post (or the one sentence column)" },
];

export function ImportForm({ projectId, disabled, onJob, kind = "spans" }: { projectId: number; disabled: boolean; onJob: (job: ImportJob) => void; kind?: ProjectKind }) {
  const allowed = formatsFor(kind);
  const [format, setFormat] = useState<ImportFormat>(allowed[0]);
  const [file, setFile] = useState<File | null>(null);
  const [csv, setCsv] = useState<CsvInspection | null>(null);
  const [columns, setColumns] = useState({ text: "", id: "" });
  const [mapping, setMapping] = useState<ItemMapping>(NO_MAPPING);
  const [smartypatText, setSmartypatText] = useState("");
  const [metadata, setMetadata] = useState("");
  const [lsPreview, setLsPreview] = useState<LsPreview | null>(null);
  const [textsOnly, setTextsOnly] = useState(false);
  const [lsChoices, setLsChoices] = useState<Record<string, AnnotatorChoice>>({});
  const [errors, setErrors] = useState<FormErrors>(NO_ERRORS);
  const [busy, setBusy] = useState<string | null>(null);
  // Only the latest inspection counts: changing the format, then the file, sends two, and
  // the first one's answer may come back last (it showed the previous file's columns).
  const latestInspection = useRef(0);

  const inspect = async (f: File) => {
    setCsv(null);
    const ticket = ++latestInspection.current;
    const current = () => ticket === latestInspection.current;
    await submitForm(() => sendMultipart(`/api/projects/${projectId}/imports/inspect/`, { file: f }), {
      setBusy: (on) => current() && setBusy(on ? "Reading the columns…" : null),
      setErrors: (e) => current() && setErrors(e),
      offline: "The server cannot be reached.",
      onOk: (res) => {
        if (!current()) return;
        const ins = res.data as CsvInspection;
        setCsv(ins);
        setColumns({ text: guessTextColumn(ins), id: guessIdColumn(ins) });
        setMapping(guessItemMapping(ins));
      },
    });
  };

  // A Label Studio file's annotators, read before uploading (the latest file only).
  const readAnnotators = async (f: File) => {
    setLsPreview(null);
    const ticket = ++latestInspection.current;
    const current = () => ticket === latestInspection.current;
    await submitForm(() => sendMultipart(`/api/projects/${projectId}/imports/label-studio/annotators/`, { file: f }), {
      setBusy: (on) => current() && setBusy(on ? "Reading the annotators…" : null),
      setErrors: (e) => current() && setErrors(e),
      offline: "The server cannot be reached.",
      onOk: (res) => {
        if (!current()) return;
        const preview = res.data as LsPreview;
        setLsPreview(preview);
        setLsChoices(initialChoices(preview));
      },
    });
  };

  const pick = (f: File | null, fmt: ImportFormat = format) => {
    setFile(f);
    setErrors(NO_ERRORS);
    setCsv(null);
    setLsPreview(null);
    const guess = f ? guessFormat(f.name) : null;
    const guessed = guess && allowed.includes(guess) ? guess : null;
    const next = guessed ?? fmt;
    if (guessed) setFormat(guessed);
    if (f && needsColumns(next)) void inspect(f);
    if (f && next === "labelstudio") void readAnnotators(f);
  };

  const submit = async (e: Event) => {
    e.preventDefault();
    if (busy || disabled) return;
    if (!file) return setErrors({ fields: { file: ["Choose a file to import."] }, general: [] });
    if (format === "csv" && !columns.text) return setErrors({ fields: { text_column: ["Choose the column that holds the texts."] }, general: [] });
    let annotators: string | undefined;
    if (format === "labelstudio" && !textsOnly) {
      const built = buildAnnotatorChoices(lsChoices);
      if (Object.keys(built.errors.fields).length) return setErrors(built.errors);
      annotators = built.json;
    }
    let itemColumns: string | undefined;
    if (format === "items") {
      const built = buildItemColumns(mapping);
      if (!built.json) return setErrors(built.errors);
      itemColumns = built.json;
    }
    const request = () =>
      sendMultipart(`/api/projects/${projectId}/imports/`, {
        file,
        format,
        text_column: format === "csv" ? columns.text : format === "smartypat" && smartypatText ? smartypatText : undefined,
        id_column: format === "csv" ? columns.id : undefined,
        columns: itemColumns,
        set_metadata: kind === "items" && metadata.trim() ? metadata.trim() : undefined,
        texts_only: format === "labelstudio" && textsOnly ? "true" : undefined,
        annotators,
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
          required
          value={format}
          onValue={(v) => {
            setFormat(v as ImportFormat);
            setCsv(null);
            setLsPreview(null);
            if (needsColumns(v as ImportFormat) && file) void inspect(file);
            if (v === "labelstudio" && file) void readAnnotators(file);
          }}
          options={FORMATS.filter((f) => allowed.includes(f.value)).map((f) => ({ value: f.value, label: f.label }))}
          messages={messagesFor(errors, "format")}
          hint={chosen.hint}
          testId="import-format"
        />
      </div>
      <FileDrop id="import-file" label="File" accept={chosen.accept} file={file} onFile={(f) => pick(f)} messages={messagesFor(errors, "file")} required testId="import-file" hint="Every record is checked first: a file with any bad line imports nothing." />
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
      {format === "labelstudio" && lsPreview && (
        <LabelStudioChoices
          preview={lsPreview}
          textsOnly={textsOnly}
          onTextsOnly={setTextsOnly}
          choices={lsChoices}
          onChoice={(key, choice) => setLsChoices((all) => ({ ...all, [key]: choice }))}
          errors={errors}
        />
      )}
      {format === "labelstudio" && messagesFor(errors, "annotators").length > 0 && (
        <p class="form-error" role="alert" data-testid="ls-annotators-error">
          {messagesFor(errors, "annotators").join(" ")}
        </p>
      )}
      {format === "smartypat" && (
        <div class="field-row">
          <Select
            id="import-smartypat-text"
            label="Item text"
            path="text_column"
            class="grow"
            value={smartypatText}
            onValue={setSmartypatText}
            options={SMARTYPAT_TEXT}
            placeholder="Default: the rewrite in a file without a header, else the post"
            messages={messagesFor(errors, "text_column")}
            hint="Files with or without a header; a one-column file holds benign (sound) sentences."
            testId="import-smartypat-text"
          />
        </div>
      )}
      {kind === "items" && (
        <div class="field-row">
          <TextField
            id="import-metadata"
            label="Metadata on every item (optional)"
            path="set_metadata"
            class="grow"
            value={metadata}
            onValue={setMetadata}
            placeholder="split=bench"
            messages={messagesFor(errors, "set_metadata")}
            hint="key=value, written on each item of this file; the Results tab offers its values as subsets (split=bench, split=benign)."
            testId="import-metadata"
          />
        </div>
      )}
      {format === "items" && csv && <ItemColumns inspection={csv} mapping={mapping} onMapping={setMapping} messagesOf={(path) => messagesFor(errors, path)} />}
      {format === "items" && messagesFor(errors, "columns").length > 0 && (
        <p class="form-error" role="alert">
          {messagesFor(errors, "columns").join(" ")}
        </p>
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
