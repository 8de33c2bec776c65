// The generation launch form: its defaults (a project that fits, a local model), the
// POST /api/evaluation/generation-jobs/ body built from it, and each refusal of the server
// put at the field it is about, in words (tested in launchForm.test.ts).

import { type FormErrors, NO_ERRORS } from "../../lib/formErrors";
import { preselectedModels } from "../../lib/launch";
import type { CredentialOption, SuggestedModel } from "../../types";

export interface GenerationOptions {
  projects: { id: number; name: string }[];
  can_create: boolean;
  models: SuggestedModel[];
  backends: string[];
  credentials: CredentialOption[];
}

/** The project select's value for "a new item project" (its name typed beside it). */
export const NEW_PROJECT = "__new__";
/** The model select's value for a model typed in (backend, name, settings). */
export const OTHER_MODEL = "other";

export interface GenerationForm {
  project: string;
  newName: string;
  type: string;
  method: string;
  /** "0", "1"… (an offered model) or OTHER_MODEL. */
  model: string;
  backend: string;
  modelName: string;
  credential: string;
  settings: string;
  n: string;
}

/** The form's fields, the keys of its errors. */
export type GenerationField = keyof GenerationForm;

export interface GenerationBody {
  project: string;
  type: string;
  method: string;
  backend: string;
  model: string;
  settings: Record<string, unknown>;
  n: number;
}

/** A project that fits (the first by name), else a new one when the user may create it; the
 * local model the run launch page preselects (SmolLM2), else the first offered. */
export function initialGenerationForm(options: GenerationOptions, type: string): GenerationForm {
  const project = options.projects[0]?.name ?? (options.can_create ? NEW_PROJECT : "");
  const local = preselectedModels(options.models)[0] ?? (options.models.length ? 0 : -1);
  return {
    project,
    newName: project === NEW_PROJECT ? `Generated: ${type || "items"}` : "",
    type,
    method: "prolog",
    model: local >= 0 ? String(local) : OTHER_MODEL,
    backend: options.backends.includes("transformers") ? "transformers" : (options.backends[0] ?? ""),
    modelName: "",
    credential: "",
    settings: "{}",
    n: "20",
  };
}

const fail = (errors: FormErrors, field: GenerationField, message: string) => (errors.fields[field] ??= []).push(message);

/** The request body, or what the form itself refuses (nothing is sent then). */
export function buildGeneration(form: GenerationForm, options: GenerationOptions): { body: GenerationBody | null; errors: FormErrors } {
  const errors: FormErrors = { fields: {}, general: [] };
  const project = form.project === NEW_PROJECT ? form.newName.trim() : form.project;
  if (form.project === NEW_PROJECT && !project) fail(errors, "newName", "Give the new project a name.");
  else if (!project) fail(errors, "project", "Choose a project.");
  if (!form.type) fail(errors, "type", "Choose a fallacy type (the rules page adds one).");
  const n = Number(form.n.trim());
  if (!form.n.trim() || !Number.isInteger(n) || n < 1 || n > 200) fail(errors, "n", "A whole number from 1 to 200.");

  let backend: string;
  let model: string;
  let settings: Record<string, unknown> = {};
  const offered = form.model === OTHER_MODEL ? undefined : options.models[Number(form.model)];
  if (offered) {
    ({ backend, model } = offered);
    settings = { ...offered.settings };
  } else {
    backend = form.backend;
    model = form.modelName.trim();
    if (!backend) fail(errors, "backend", "Choose a backend.");
    try {
      const parsed: unknown = JSON.parse(form.settings.trim() || "{}");
      if (parsed && typeof parsed === "object" && !Array.isArray(parsed)) settings = parsed as Record<string, unknown>;
      else fail(errors, "settings", "A JSON object, such as {} or {\"base_url\": \"http://127.0.0.1:8000/v1\"}.");
    } catch (e) {
      fail(errors, "settings", `Not JSON: ${(e as Error).message}.`);
    }
    if (backend === "openai" && form.credential) settings = { ...settings, credential: form.credential };
  }
  if (Object.keys(errors.fields).length) return { body: null, errors };
  return { body: { project, type: form.type, method: form.method, backend, model, settings, n }, errors };
}

const SETTING_NAMES: Record<string, string> = {
  base_url: "server address",
  credential: "credential",
  gguf_file: "GGUF file",
  batch_size: "batch size",
  revision: "revision",
  api_key_env: "key variable",
  timeout: "timeout",
  backoff: "backoff",
  chat: "chat mode",
  device: "device",
  dtype: "number type",
};

const settingName = (key: string) => `the ${SETTING_NAMES[key] ?? key} (${key})`;

/** A server message with its raw setting paths ("set settings.base_url or …") in words. */
export function inWords(message: string): string {
  return message.replace(/\bsettings\.(\w+)/g, (_, key: string) => settingName(key));
}

const capital = (s: string) => s.charAt(0).toUpperCase() + s.slice(1);

/** Which field of the form a path of the server's answer is about (null: none of them). */
export function fieldFor(path: string, form: Pick<GenerationForm, "project" | "model">): GenerationField | null {
  const other = form.model === OTHER_MODEL;
  if (path === "project") return form.project === NEW_PROJECT ? "newName" : "project";
  if (path === "type" || path.startsWith("rule ")) return "type";
  if (path === "method" || path === "n") return path;
  if (path === "settings") return other ? "settings" : "model";
  if (path === "backend" || path === "model.backend") return other ? "backend" : "model";
  if (path === "model.model") return other ? "modelName" : "model";
  if (path === "model.settings.credential") return other ? "credential" : "model";
  if (path.startsWith("model.settings.")) return other ? "settings" : "model";
  if (path === "model" || path.startsWith("model.")) return other ? "modelName" : "model";
  return null;
}

/** A 400 answer's messages placed at the form's fields, in words; the rest stays general. */
export function placeErrors(body: unknown, form: Pick<GenerationForm, "project" | "model">, status?: number): FormErrors {
  const out: FormErrors = { fields: {}, general: [] };
  const entries = body && typeof body === "object" && !Array.isArray(body) ? Object.entries(body as Record<string, unknown>) : [];
  for (const [path, value] of entries) {
    const messages = (Array.isArray(value) ? value : [value]).filter((m): m is string => typeof m === "string");
    const field = fieldFor(path, form);
    for (const raw of messages) {
      const words = inWords(raw);
      const setting = /^model\.settings\.(\w+)$/.exec(path);
      let text = capital(words);
      if (setting && setting[1] !== "credential" && !words.includes(`(${setting[1]})`)) text = `${capital(settingName(setting[1]))}: ${words}`;
      else if (path.startsWith("rule ")) text = `The stored ${path}: ${words}`;
      else if (path === "judge") text = `The judge prompt: ${words}`;
      else if (!field && path !== "detail" && path !== "non_field_errors") text = `${capital(path)}: ${words}`;
      if (field) fail(out, field, text);
      else out.general.push(text);
    }
  }
  if (!Object.keys(out.fields).length && !out.general.length) out.general.push(status ? `The launch failed (${status}).` : "The launch failed.");
  return out;
}

/** The errors without those of the given fields (they were just changed). */
export function clearFields(errors: FormErrors, fields: GenerationField[]): FormErrors {
  if (!fields.some((f) => f in errors.fields)) return errors;
  const kept = Object.fromEntries(Object.entries(errors.fields).filter(([k]) => !fields.includes(k as GenerationField)));
  return Object.keys(kept).length || errors.general.length ? { fields: kept, general: errors.general } : NO_ERRORS;
}

/** The fields whose errors a change of `field` settles (a new model choice settles all of
 * the model's). */
export function settledBy(field: GenerationField): GenerationField[] {
  if (field === "model") return ["model", "backend", "modelName", "credential", "settings"];
  if (field === "project") return ["project", "newName"];
  if (field === "backend") return ["backend", "settings", "credential", "modelName"];
  return [field];
}
