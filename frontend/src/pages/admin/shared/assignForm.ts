// The assignment forms (assign; unassign / reassign) and their request bodies.

import type { FormErrors } from "../../../lib/formErrors";
import type { DocumentScope } from "../../../types";
import { type ListFilters, filterParams } from "../../project/query";
import { parseCount } from "./projectForm";

export interface AssignForm {
  annotators: number[];
  perDocument: string;
  scope: DocumentScope;
  sampleSize: string;
  seed: string;
  /** For "selected" (the API's list of ids; the page selects with filters instead). */
  documentIds: number[];
  /** For "matching": the document list's search and filters; the server selects the documents. */
  filters?: ListFilters;
  /** For "matching": how many documents the filters match now (null: not known yet). */
  matchCount?: number | null;
}

export interface AssignBody {
  annotators: number[];
  per_document: number;
  documents: DocumentScope;
  sample_size?: number;
  seed?: number;
  document_ids?: number[];
  filters?: ReturnType<typeof filterParams>;
}

const empty = (): FormErrors => ({ fields: {}, general: [] });

/** POST /api/projects/<id>/assignments/ body, or what the form can tell is wrong. */
export function buildAssign(form: AssignForm): { body: AssignBody | null; errors: FormErrors } {
  const errors = empty();
  if (!form.annotators.length) errors.fields.annotators = ["Choose at least one annotator."];
  const per = parseCount(form.perDocument);
  if (per === null) errors.fields.per_document = ["A whole number, 1 or more."];
  else if (form.annotators.length && per > form.annotators.length)
    errors.fields.per_document = [`Only ${form.annotators.length} annotator${form.annotators.length === 1 ? " is" : "s are"} chosen: a document never goes twice to the same one.`];
  const body: AssignBody = { annotators: [...form.annotators], per_document: per ?? 0, documents: form.scope };
  if (form.scope === "sample") {
    const k = parseCount(form.sampleSize);
    if (k === null) errors.fields.sample_size = ["How many documents: a whole number, 1 or more."];
    else body.sample_size = k;
    if (form.seed.trim()) {
      const s = parseCount(form.seed, 0);
      if (s === null) errors.fields.seed = ["A whole number (the same seed draws the same sample)."];
      else body.seed = s;
    }
  }
  if (form.scope === "selected") {
    if (!form.documentIds.length) errors.fields.document_ids = ["The search found no documents."];
    else body.document_ids = [...form.documentIds];
  }
  if (form.scope === "matching") {
    if (form.matchCount === 0) errors.fields.filters = ["No document matches these filters."];
    else body.filters = form.filters ? filterParams(form.filters) : {};
  }
  if (Object.keys(errors.fields).length) return { body: null, errors };
  return { body, errors };
}

/** What the assignment form says of "the documents matching" before assigning. */
export function matchText(count: number | null, filtered: boolean): string {
  if (count === null) return "Counting the matching documents…";
  const n = `${count.toLocaleString("en")} document${count === 1 ? "" : "s"}`;
  if (!filtered) return `No filter: all ${n} of the project.`;
  if (count === 0) return "No document matches these filters.";
  return `${n} match${count === 1 ? "es" : ""} these filters.`;
}

/** Document ids typed as "3, 5 7-9" → [3, 5, 7, 8, 9]; null when something is not an id. */
export function parseIds(text: string): number[] | null {
  const out: number[] = [];
  for (const part of text.split(/[\s,;]+/).filter(Boolean)) {
    const range = /^(\d+)-(\d+)$/.exec(part);
    if (range) {
      const [a, b] = [Number(range[1]), Number(range[2])];
      if (b < a || b - a > 10000) return null;
      for (let i = a; i <= b; i++) out.push(i);
    } else if (/^\d+$/.test(part)) out.push(Number(part));
    else return null;
  }
  return [...new Set(out)];
}

export type MoveAction = "unassign" | "reassign";

export interface MoveForm {
  action: MoveAction;
  from: string;
  to: string;
  ids: string;
}

/** The unassign / reassign request: its URL suffix and body, or the form's own problems. */
export function buildMove(form: MoveForm, force: boolean): { path: string; body: Record<string, unknown> | null; errors: FormErrors } {
  const errors = empty();
  const from = Number(form.from);
  if (!form.from) errors.fields[form.action === "unassign" ? "annotator" : "from_annotator"] = ["Choose an annotator."];
  const ids = parseIds(form.ids);
  if (ids === null) errors.fields.document_ids = ['Document ids separated by spaces or commas ("3, 5, 7-9").'];
  else if (!ids.length) errors.fields.document_ids = ["Give at least one document id."];
  if (form.action === "reassign") {
    if (!form.to) errors.fields.to_annotator = ["Choose who takes the documents over."];
    else if (form.to === form.from) errors.fields.to_annotator = ["Choose someone else."];
  }
  const path = form.action === "unassign" ? "unassign/" : "reassign/";
  if (Object.keys(errors.fields).length || !ids) return { path, body: null, errors };
  const body: Record<string, unknown> =
    form.action === "unassign"
      ? { annotator: from, document_ids: ids, force }
      : { from_annotator: from, to_annotator: Number(form.to), document_ids: ids, force };
  return { path, body, errors };
}

/** Each annotator's load: before (from the progress table) and after an assignment. */
export function loadChanges(
  before: { id: number; username: string; assigned: number }[],
  after: { id: number; username: string; assigned: number }[],
): { id: number; username: string; before: number; after: number }[] {
  const was = new Map(before.map((a) => [a.id, a.assigned]));
  return after.map((a) => ({ id: a.id, username: a.username, before: was.get(a.id) ?? 0, after: a.assigned }));
}
