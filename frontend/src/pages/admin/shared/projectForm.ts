// The project form (create and settings) and its mapping to the API's request bodies.

import type { FormErrors } from "../../../lib/formErrors";
import type { TemplateMode } from "../../../lib/template";
import type { ProjectAdminDetail } from "../../../types";
import { type KindBody, type KindChoice, buildKind, taxonomyOptional } from "./itemForm";

export interface ProjectForm {
  name: string;
  description: string;
  guidelines: string;
  /** The taxonomy id as the select holds it ("" = none chosen). */
  taxonomy: string;
  /** "Annotators per document" as typed. */
  perDocument: string;
  /** Span projects: justification templates required, optional or off (absent: not edited). */
  templates?: TemplateMode;
}

/** The error path of each form field that the API names otherwise (others: their own key). */
const ERROR_PATHS: Partial<Record<keyof ProjectForm, string>> = { perDocument: "annotators_per_document", templates: "justification_templates" };

/** The error paths a change of these form fields answers (their messages then go). */
export function changedPaths(patch: Partial<ProjectForm>): string[] {
  return (Object.keys(patch) as (keyof ProjectForm)[]).map((k) => ERROR_PATHS[k] ?? k);
}

export const EMPTY_PROJECT: ProjectForm = { name: "", description: "", guidelines: "", taxonomy: "", perDocument: "2" };

export function formFromProject(p: ProjectAdminDetail): ProjectForm {
  const taxonomy = p.taxonomy_id ?? p.taxonomy?.id;
  return {
    name: p.name,
    description: p.description ?? "",
    guidelines: p.guidelines ?? "",
    taxonomy: taxonomy != null ? String(taxonomy) : "",
    perDocument: String(p.annotators_per_document ?? 1),
    templates: p.justification_templates,
  };
}

/** A whole number ≥ min typed in a field, or null. */
export function parseCount(text: string, min = 1): number | null {
  const t = text.trim();
  if (!/^\d+$/.test(t)) return null;
  const n = Number(t);
  return Number.isSafeInteger(n) && n >= min ? n : null;
}

export interface Built<T> {
  body: T | null;
  errors: FormErrors;
}

function check(form: ProjectForm, errors: FormErrors, noTaxonomyNeeded = false): number | null {
  if (!form.name.trim()) errors.fields.name = ["Give the project a name."];
  if (!form.taxonomy && !noTaxonomyNeeded) errors.fields.taxonomy = ["Choose a taxonomy, install a preset or upload a file."];
  const n = parseCount(form.perDocument);
  if (n === null) errors.fields.annotators_per_document = ["A whole number, 1 or more."];
  return n;
}

export interface CreateBody extends KindBody {
  name: string;
  description: string;
  guidelines: string;
  /** Absent: an item project's form preset brings its taxonomy. */
  taxonomy?: number;
  annotators_per_document: number;
  justification_templates?: TemplateMode;
}

/** POST /api/projects/ body, or the problems the form can see itself; ``kind`` (item
 *  projects) adds the kind and the form or form preset. */
export function buildCreate(form: ProjectForm, kind?: KindChoice): Built<CreateBody> {
  const errors: FormErrors = { fields: {}, general: [] };
  const n = check(form, errors, taxonomyOptional(kind));
  const kindPart = kind ? buildKind(kind) : { body: {}, errors: { fields: {}, general: [] } };
  Object.assign(errors.fields, kindPart.errors.fields);
  if (Object.keys(errors.fields).length || n === null || !kindPart.body) return { body: null, errors };
  const body: CreateBody = {
    name: form.name.trim(),
    description: form.description.trim(),
    guidelines: form.guidelines,
    annotators_per_document: n,
    ...kindPart.body,
  };
  if (form.taxonomy) body.taxonomy = Number(form.taxonomy);
  if (form.templates) body.justification_templates = form.templates;
  return { body, errors };
}

export type PatchBody = Partial<CreateBody>;

/** PATCH /api/projects/<id>/ body with only the changed fields (empty: nothing changed). */
export function buildPatch(original: ProjectForm, form: ProjectForm): Built<PatchBody> {
  const errors: FormErrors = { fields: {}, general: [] };
  const n = check(form, errors);
  if (Object.keys(errors.fields).length || n === null) return { body: null, errors };
  const body: PatchBody = {};
  if (form.name.trim() !== original.name.trim()) body.name = form.name.trim();
  if (form.description.trim() !== original.description.trim()) body.description = form.description.trim();
  if (form.guidelines !== original.guidelines) body.guidelines = form.guidelines;
  if (form.taxonomy !== original.taxonomy) body.taxonomy = Number(form.taxonomy);
  if (String(n) !== original.perDocument.trim()) body.annotators_per_document = n;
  if (form.templates && form.templates !== original.templates) body.justification_templates = form.templates;
  return { body, errors };
}
