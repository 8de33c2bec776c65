// Importing a model's published outputs into an item project: which form fields take
// them, the id/output columns of a CSV file, and the request body (or what is missing).

import type { FormValue } from "../../../components/form/multipart";
import type { CsvInspection, ItemForm } from "../../../types";
import type { FormErrors } from "../../../lib/formErrors";

/** Field kinds a model answers (ratings are judged, not answered). */
export const ANSWERED_KINDS = ["multiple-choice", "classification", "ranked", "detection", "segmentation", "free-text"];

export interface OutputsChoice {
  file: File | null;
  name: string;
  modelName: string;
  field: string;
  idColumn: string;
  outputColumn: string;
  /** The whole record is the answer (output column "*"): SmartyPat's published outputs. */
  wholeRecord?: boolean;
  /** Put before every id of the file (benign outputs 1..N -> items good-1..N). */
  idPrefix?: string;
  /** A second file of the same run (the benign outputs) and its id prefix. */
  moreFile?: File | null;
  moreIdPrefix?: string;
  /** Skip records whose id matches no item (the server reports their count and first ids). */
  skipUnmatched?: boolean;
}

/** The records an import skipped because their id matches no item (the run's config.skipped). */
export interface SkippedRecords {
  count: number;
  first: { file: string; line: number; id: string }[];
}

/** The run config's `skipped`, when the import was asked to skip unmatched ids. */
export function skippedOf(config: unknown): SkippedRecords | null {
  if (!config || typeof config !== "object") return null;
  const skipped = (config as { skipped?: unknown }).skipped;
  if (!skipped || typeof skipped !== "object") return null;
  const { count, first } = skipped as Partial<SkippedRecords>;
  return typeof count === "number" ? { count, first: Array.isArray(first) ? first : [] } : null;
}

/** One sentence saying what was skipped ("" when nothing was asked). */
export function skippedText(skipped: SkippedRecords | null): string {
  if (!skipped) return "";
  if (!skipped.count) return "No record was skipped: every id matches an item.";
  const shown = skipped.first.map((r) => `${r.id} (${r.file} line ${r.line})`).join(", ");
  const more = skipped.count > skipped.first.length ? ", …" : "";
  const records = skipped.count === 1 ? "1 record" : `${skipped.count} records`;
  return `Skipped ${records} whose id matches no item: ${shown}${more}.`;
}

export const EMPTY_OUTPUTS: OutputsChoice = { file: null, name: "", modelName: "", field: "", idColumn: "", outputColumn: "", wholeRecord: false, idPrefix: "", moreFile: null, moreIdPrefix: "", skipUnmatched: false };

/** The output column of whole records. */
export const WHOLE_RECORD = "*";

/** The form fields whose answers can be imported, as select options. */
export function answeredFields(form: ItemForm | Record<string, never> | undefined): { value: string; label: string }[] {
  const fields = form && "fields" in form ? form.fields : [];
  return fields.filter((f) => ANSWERED_KINDS.includes(f.kind)).map((f) => ({ value: f.name, label: `${f.title || f.name} (${f.kind})` }));
}

/** JSON (Lines or an array) by its name, as the server decides; anything else is CSV. */
export const isJsonName = (name: string): boolean => /\.(jsonl|json|ndjson)$/i.test(name.trim());

/** Likely id and output columns of a CSV file ("id" / "output" and common spellings). */
export function guessOutputColumns(inspection: CsvInspection): { idColumn: string; outputColumn: string } {
  const find = (pattern: RegExp) => inspection.columns.find((c) => pattern.test(c.trim())) ?? "";
  return {
    idColumn: find(/^(id|item|item_id|item id|pid|post id|external_id)$/i),
    outputColumn: find(/^(output|answer|response|prediction|completion|raw_output|raw output)$/i),
  };
}

/** The multipart body of POST /api/evaluation/projects/<id>/run-imports/, or the
 * messages of what the form still lacks. Two files go as repeated `file` and `id_prefix`
 * parts (one prefix per file, in order). */
export function buildOutputsImport(choice: OutputsChoice): { body: Record<string, FormValue | FormValue[]> | null; errors: FormErrors } {
  const fields: Record<string, string[]> = {};
  if (!choice.file) fields.file = ["Choose the file of model outputs."];
  if (!choice.name.trim()) fields.name = ["Name the run."];
  if (!choice.field) fields.field = ["Choose the form field the outputs answer."];
  const csv = !!choice.file && !isJsonName(choice.file.name);
  if (csv && !choice.idColumn) fields.id_column = ["Choose the column of the item ids."];
  if (csv && !choice.outputColumn && !choice.wholeRecord) fields.output_column = ["Choose the column of the model's answers."];
  if (Object.keys(fields).length || !choice.file) return { body: null, errors: { fields, general: [] } };
  const body: Record<string, FormValue | FormValue[]> = { file: choice.file, name: choice.name.trim(), field: choice.field };
  if (choice.modelName.trim()) body.model_name = choice.modelName.trim();
  if (csv) {
    body.id_column = choice.idColumn;
    body.output_column = choice.outputColumn;
  }
  if (choice.wholeRecord) body.output_column = WHOLE_RECORD;
  if (choice.skipUnmatched) body.skip_unmatched = "true";
  const prefix = choice.idPrefix?.trim() ?? "";
  if (choice.moreFile) {
    body.file = [choice.file, choice.moreFile];
    body.id_prefix = [prefix, choice.moreIdPrefix?.trim() ?? ""];
  } else if (prefix) body.id_prefix = prefix;
  return { body, errors: { fields: {}, general: [] } };
}
