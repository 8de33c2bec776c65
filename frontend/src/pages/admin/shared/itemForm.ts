// Item projects on the admin pages: the kind and form of a new project, and the column
// mapping of an "items" import (pure logic, tested in itemForm.test.ts).

import type { FormErrors } from "../../../lib/formErrors";
import type { CsvInspection, ImportFormat, ItemForm, ItemRole, ProjectKind } from "../../../types";

/** What the new-project page holds about the kind: a preset's form, or a JSON form. */
export interface KindChoice {
  kind: ProjectKind;
  /** A form preset's name; "" = the JSON form typed in formJson. */
  preset: string;
  formJson: string;
}

export const EMPTY_KIND: KindChoice = { kind: "spans", preset: "flub", formJson: "" };

export interface KindBody {
  kind?: ProjectKind;
  form_preset?: string;
  form?: ItemForm;
}

/** The kind/form part of POST /api/projects/, or the problems the page can see itself. */
export function buildKind(choice: KindChoice): { body: KindBody | null; errors: FormErrors } {
  const errors: FormErrors = { fields: {}, general: [] };
  if (choice.kind === "spans") return { body: {}, errors };
  if (choice.preset) return { body: { kind: "items", form_preset: choice.preset }, errors };
  let form: unknown;
  try {
    form = JSON.parse(choice.formJson);
  } catch (e) {
    errors.fields.form = [`The form is not valid JSON: ${(e as Error).message}`];
    return { body: null, errors };
  }
  if (!form || typeof form !== "object" || !Array.isArray((form as ItemForm).fields)) {
    errors.fields.form = ['The form is an object with a list of "fields".'];
    return { body: null, errors };
  }
  return { body: { kind: "items", form: form as ItemForm }, errors };
}

/** Whether the taxonomy may be left empty (a preset brings its own). */
export const taxonomyOptional = (choice: KindChoice | undefined): boolean => !!choice && choice.kind === "items" && !!choice.preset;

/** The import formats a project of this kind takes. */
export function formatsFor(kind: ProjectKind | undefined): ImportFormat[] {
  return kind === "items" ? ["flub", "smartypat", "items", "hf"] : ["mafalda", "doccano", "text", "csv", "labelstudio", "hf"];
}

export const ITEM_ROLES: { role: ItemRole; label: string; hint: string }[] = [
  { role: "text", label: "Text", hint: "The item's text (required)." },
  { role: "id", label: "Id", hint: "Kept as the item's id; re-importing the same ids is refused." },
  { role: "answer", label: "Answer", hint: "Gold of the multiple-choice question: an option key." },
  { role: "label", label: "Label", hint: "Gold of the classification question: one label." },
  { role: "labels", label: "Labels", hint: "Gold of the ranked question: comma-separated labels (empty: sound)." },
  { role: "detection", label: "Fallacious?", hint: "Gold of the detection question: true/false, yes/no, fallacious/sound." },
  { role: "segments", label: "Segments", hint: 'Gold of the segmentation question: "Label: passage" lines, or JSON [[start, end, label], ...].' },
  { role: "reference", label: "Reference", hint: "Gold of the free-text question: a reference answer." },
  { role: "candidate", label: "Candidate", hint: "The text being rated or judged." },
];

/** role -> column ("" = not mapped); options: one JSON column or several columns. */
export interface ItemMapping {
  columns: Partial<Record<ItemRole, string>>;
  /** "json": options is one column holding {"A": ..}; "columns": optionColumns. */
  optionsMode: "none" | "json" | "columns";
  optionColumns: string[];
}

const GUESSES: [ItemRole, RegExp][] = [
  ["text", /^(text|question|post|original[ _]post|sentence|body|content)$/i],
  ["id", /^(id|qid|item_id|external_id)$/i],
  ["answer", /^(answer|gold|correct)$/i],
  ["label", /^(label|type|class|category)$/i],
  ["labels", /^(labels|types|fallacy[ _]types|fallacies)$/i],
  ["detection", /^(fallacious|is[ _]fallac(y|ious)|detection)$/i],
  ["segments", /^(segments|spans|segmentation|passages)$/i],
  ["reference", /^(reference|explanation|rationale)$/i],
  ["candidate", /^(candidate|reply|response|counter)$/i],
];

/** A first mapping from the header's names; the admin can change every choice. */
export function guessItemMapping(inspection: CsvInspection): ItemMapping {
  const columns: Partial<Record<ItemRole, string>> = {};
  for (const [role, pattern] of GUESSES) {
    const found = inspection.columns.find((c) => pattern.test(c.trim()));
    if (found && !Object.values(columns).includes(found)) columns[role] = found;
  }
  const letters = inspection.columns.filter((c) => /^[A-H]$/.test(c.trim()));
  const json = inspection.columns.find((c) => /^(options|choices)$/i.test(c.trim()));
  if (letters.length >= 2) return { columns, optionsMode: "columns", optionColumns: letters };
  if (json) return { columns: { ...columns, options: json }, optionsMode: "json", optionColumns: [] };
  return { columns, optionsMode: "none", optionColumns: [] };
}

/** The "columns" field of the import request (JSON), or the problem to show. */
export function buildItemColumns(mapping: ItemMapping): { json: string | null; errors: FormErrors } {
  const errors: FormErrors = { fields: {}, general: [] };
  if (!mapping.columns.text) errors.fields["columns.text"] = ["Choose the column that holds the texts."];
  const out: Record<string, string | string[]> = {};
  for (const { role } of ITEM_ROLES) {
    const column = mapping.columns[role];
    if (column) out[role] = column;
  }
  if (mapping.optionsMode === "json") {
    if (mapping.columns.options) out.options = mapping.columns.options;
    else errors.fields["columns.options"] = ["Choose the column holding the options as JSON."];
  } else if (mapping.optionsMode === "columns") {
    if (mapping.optionColumns.length >= 2) out.options = mapping.optionColumns;
    else errors.fields["columns.options"] = ["Tick two or more option columns."];
  }
  if (Object.keys(errors.fields).length) return { json: null, errors };
  return { json: JSON.stringify(out), errors };
}
