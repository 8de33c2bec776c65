// The launch form: its state, the POST /api/evaluation/runs/ body built from it, and the
// bookkeeping that puts each error of a 400 answer next to the model or variant it names.

import type {
  DecodingParams,
  FormFieldOption,
  LaunchBody,
  LaunchOptions,
  ModelChoice,
  RegisteredModel,
  SuggestedModel,
  Variant,
} from "../types";
import { type FormErrors, hasErrors } from "./formErrors";
import { parseJsonObject, toJsonText } from "./jsonInput";

export interface CustomModelRow {
  key: string;
  backend: string;
  model: string;
  settingsText: string;
  /** openai: the operator's credential chosen by name ("" none: a server on this machine). */
  credential?: string;
}

export interface LaunchForm {
  goldStandard: number | null;
  /** Item projects: the form field answered ("" on span projects). */
  field: string;
  /** Indexes into launch-options' suggested_models that are ticked. */
  suggested: number[];
  custom: CustomModelRow[];
  /** Ticked prompt variant ids. */
  variants: number[];
  level: number;
  limit: string;
  shards: string;
  maxNewTokens: string;
  temperature: string;
  topP: string;
  seed: string;
  name: string;
}

/** Where each entry of the body's lists came from, to route `models[i]…` errors back. */
export interface LaunchPlan {
  body: LaunchBody;
  /** "suggested:INDEX" or "custom:KEY", one per entry of body.models. */
  modelKeys: string[];
  /** body.prompt_variants (the ids, in order). */
  variantIds: number[];
  /** What the form itself refuses (not JSON, not a number); nothing is sent then. */
  errors: FormErrors;
}

export const suggestedKey = (index: number) => `suggested:${index}`;
export const customKey = (row: CustomModelRow) => `custom:${row.key}`;

/** SmolLM2 through transformers when offered (the fast local default), else nothing. */
export function preselectedModels(models: SuggestedModel[]): number[] {
  const i = models.findIndex((m) => m.backend === "transformers" && /smollm2/i.test(`${m.label} ${m.model}`));
  return i >= 0 ? [i] : [];
}

/** The hint under an added model's name: what the operator lets a project admin name. */
export function modelHint(backend: string, registered: RegisteredModel[], hubAllowed: string[]): string | undefined {
  if (backend !== "transformers" && backend !== "vllm") return undefined;
  const names = registered.filter((m) => m.backends.includes(backend)).map((m) => m.name);
  const hub = hubAllowed.length ? `; hub ids matching ${hubAllowed.join(", ")}` : "";
  return names.length || hub ? `Registered: ${names.join(", ") || "none"}${hub}.` : "No model is registered for this backend: ask an operator.";
}

/** The newest zero-shot variant (the plainest prompt) when there is one, else the first. */
export function preselectedVariants(variants: { id: number; name: string; kind: string }[]): number[] {
  const zero = variants.find((v) => v.name === "zero-shot") ?? variants.find((v) => v.kind === "zero-shot");
  const chosen = zero ?? variants[0];
  return chosen ? [chosen.id] : [];
}

const str = (v: number | null | undefined) => (v == null ? "" : String(v));

/** The form fields a run can answer: those some prompt variant's task answers. */
export function answerableFields(options: LaunchOptions): FormFieldOption[] {
  const tasks = new Set(options.variants.map((v) => v.task));
  return (options.fields ?? []).filter((f) => tasks.has(f.kind));
}

/** The variants offered for a field (its kind's task); every variant on a span project. */
export function variantsForField(variants: Variant[], field: FormFieldOption | undefined): Variant[] {
  return field ? variants.filter((v) => v.task === field.kind) : variants;
}

export function initialForm(options: LaunchOptions): LaunchForm {
  const d = options.defaults;
  const published = options.gold_standards.find((g) => g.status === "published");
  const field = options.kind === "items" ? answerableFields(options)[0] : undefined;
  return {
    goldStandard: field ? null : ((published ?? options.gold_standards[0])?.id ?? null),
    field: field?.name ?? "",
    suggested: preselectedModels(options.suggested_models),
    custom: [],
    variants: preselectedVariants(variantsForField(options.variants, field)),
    level: d.level ?? 2,
    limit: str(d.limit),
    shards: str(d.shards),
    maxNewTokens: str(d.params?.max_new_tokens),
    temperature: str(d.params?.temperature),
    topP: str(d.params?.top_p),
    seed: str(d.params?.seed),
    name: "",
  };
}

let rowCounter = 0;
export function newCustomRow(backend = "transformers", settings: Record<string, unknown> = {}): CustomModelRow {
  rowCounter += 1;
  return { key: `m${rowCounter}`, backend, model: "", settingsText: toJsonText(settings) };
}

type NumberResult = { value: number | null; error?: string };

/** A number input: blank is null; `integer` refuses fractions. */
export function parseNumber(text: string, integer: boolean): NumberResult {
  const t = text.trim();
  if (!t) return { value: null };
  const n = Number(t);
  if (!Number.isFinite(n)) return { value: null, error: "must be a number" };
  if (integer && !Number.isInteger(n)) return { value: null, error: "must be a whole number" };
  return { value: n };
}

export function buildLaunch(projectId: number, form: LaunchForm, suggested: SuggestedModel[]): LaunchPlan {
  const errors: FormErrors = { fields: {}, general: [] };
  const fail = (path: string, message: string) => (errors.fields[path] ??= []).push(message);

  const models: ModelChoice[] = [];
  const modelKeys: string[] = [];
  for (const i of [...form.suggested].sort((a, b) => a - b)) {
    const m = suggested[i];
    if (!m) continue;
    models.push({ backend: m.backend, model: m.model, settings: { ...m.settings } });
    modelKeys.push(suggestedKey(i));
  }
  for (const row of form.custom) {
    const at = models.length;
    const settings = parseJsonObject(row.settingsText, "settings");
    if (!settings.ok) fail(`models[${at}].settings`, settings.error.replace(/^settings: /, ""));
    const chosen = settings.ok ? settings.value : {};
    if (row.backend === "openai" && row.credential) chosen.credential = row.credential;
    models.push({ backend: row.backend, model: row.model.trim(), settings: chosen });
    modelKeys.push(customKey(row));
  }

  const num = (path: string, text: string, integer: boolean) => {
    const r = parseNumber(text, integer);
    if (r.error) fail(path, r.error);
    return r.value;
  };
  const limit = num("limit", form.limit, true);
  const shards = num("shards", form.shards, true);
  const params: DecodingParams = {};
  const maxNewTokens = num("params.max_new_tokens", form.maxNewTokens, true);
  const temperature = num("params.temperature", form.temperature, false);
  const topP = num("params.top_p", form.topP, false);
  const seed = num("params.seed", form.seed, true);
  if (maxNewTokens != null) params.max_new_tokens = maxNewTokens;
  if (temperature != null) params.temperature = temperature;
  if (topP != null) params.top_p = topP;
  if (seed != null) params.seed = seed;

  const body: LaunchBody = {
    project: projectId,
    gold_standard: form.goldStandard,
    models,
    prompt_variants: [...form.variants],
    level: form.level,
    limit,
    shards: shards ?? null,
    params,
  };
  const name = form.name.trim();
  if (name) body.name = name;
  if (form.field) {
    body.field = form.field;
    body.gold_standard = null;
  }
  return { body, modelKeys, variantIds: [...form.variants], errors };
}

export const canSend = (plan: LaunchPlan) => !hasErrors(plan.errors);

const FIELD_NAMES: Record<string, string> = {
  gold_standard: "Gold version",
  models: "Models",
  prompt_variants: "Prompt variants",
  level: "Level",
  limit: "Limit",
  shards: "Shards",
  params: "Decoding",
  name: "Name",
  project: "Project",
};

/** A readable name of an error path for the summary: "Model 2 (gpt-x): model". */
export function describeLaunchPath(
  path: string,
  plan: Pick<LaunchPlan, "body" | "variantIds">,
  variantName: (id: number) => string,
): string {
  let m = /^models\[(\d+)\](?:\.(.+))?$/.exec(path);
  if (m) {
    const model = plan.body.models[Number(m[1])];
    const what = model ? `Model ${Number(m[1]) + 1} (${model.model || model.backend})` : `Model ${Number(m[1]) + 1}`;
    return m[2] ? `${what}: ${m[2]}` : what;
  }
  m = /^prompt_variants\[(\d+)\]$/.exec(path);
  if (m) {
    const id = plan.variantIds[Number(m[1])];
    return `Prompt variant ${id != null ? variantName(id) : Number(m[1]) + 1}`;
  }
  m = /^params\.(.+)$/.exec(path);
  if (m) return `Decoding: ${m[1]}`;
  return FIELD_NAMES[path] ?? path;
}

/** The error path prefix of a model entry of the form, when it was in the sent body. */
export function modelPath(plan: Pick<LaunchPlan, "modelKeys"> | null, key: string): string | null {
  const i = plan ? plan.modelKeys.indexOf(key) : -1;
  return i >= 0 ? `models[${i}]` : null;
}

/** The error path of a ticked variant, when it was in the sent body. */
export function variantPath(plan: Pick<LaunchPlan, "variantIds"> | null, id: number): string | null {
  const i = plan ? plan.variantIds.indexOf(id) : -1;
  return i >= 0 ? `prompt_variants[${i}]` : null;
}
