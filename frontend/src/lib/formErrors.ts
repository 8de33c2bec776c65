// A 400 body of the REST API mapped to per-field messages plus a summary.
//
// DRF and the launch service answer {field: [messages]}; nested serializers answer
// {models: [{model: [...]}, {}]} or {params: {seed: [...]}}; both become flat paths
// ("models[0].model", "params.seed") so a form shows each message next to its field.

export interface FormErrors {
  /** Messages by field path ("gold_standard", "models[0].settings.gguf_file"). */
  fields: Record<string, string[]>;
  /** Messages that belong to no field (detail, non_field_errors, a plain-text body). */
  general: string[];
}

export const NO_ERRORS: FormErrors = { fields: {}, general: [] };

const GENERAL_KEYS = new Set(["detail", "non_field_errors", "__all__"]);

function join(path: string, key: string): string {
  if (!path) return key;
  return key.startsWith("[") ? `${path}${key}` : `${path}.${key}`;
}

function collect(value: unknown, path: string, out: FormErrors): void {
  if (value == null || value === "") return;
  if (typeof value === "string" || typeof value === "number" || typeof value === "boolean") {
    const message = String(value);
    if (path) (out.fields[path] ??= []).push(message);
    else out.general.push(message);
    return;
  }
  if (Array.isArray(value)) {
    value.forEach((item, i) => {
      // A list of messages stays on its field; a list of objects (or lists) is indexed.
      if (item !== null && typeof item === "object") collect(item, join(path, `[${i}]`), out);
      else collect(item, path, out);
    });
    return;
  }
  if (typeof value === "object") {
    for (const [key, sub] of Object.entries(value as Record<string, unknown>)) {
      if (GENERAL_KEYS.has(key)) collect(sub, path, out);
      else collect(sub, join(path, key), out);
    }
  }
}

/** The per-field messages of an error body (any shape; unknown shapes become general). */
export function toFormErrors(body: unknown, status?: number): FormErrors {
  const out: FormErrors = { fields: {}, general: [] };
  collect(body, "", out);
  if (!Object.keys(out.fields).length && !out.general.length) {
    out.general.push(status ? `The request failed (${status}).` : "The request failed.");
  }
  return out;
}

export function hasErrors(errors: FormErrors): boolean {
  return errors.general.length > 0 || Object.keys(errors.fields).length > 0;
}

/**
 * Messages for one field; with `nested`, also those of the paths under it
 * ("models[0].settings" takes "models[0].settings.gguf_file").
 */
export function messagesFor(errors: FormErrors, path: string, nested = false): string[] {
  const own = errors.fields[path] ?? [];
  if (!nested) return own;
  const under = Object.entries(errors.fields)
    .filter(([k]) => k.startsWith(`${path}.`) || k.startsWith(`${path}[`))
    .flatMap(([k, ms]) => ms.map((m) => `${k.slice(path.length).replace(/^\./, "")}: ${m}`));
  return [...own, ...under];
}

/** Merge two sets of errors (client-side checks and the server's answer). */
export function mergeErrors(a: FormErrors, b: FormErrors): FormErrors {
  const fields: Record<string, string[]> = { ...a.fields };
  for (const [k, ms] of Object.entries(b.fields)) fields[k] = [...(fields[k] ?? []), ...ms];
  return { fields, general: [...a.general, ...b.general] };
}

/** Every message once, for the summary above a form: [{path, message}] in body order. */
export function summarize(errors: FormErrors, describe: (path: string) => string = (p) => p): { path: string | null; text: string }[] {
  return [
    ...errors.general.map((m) => ({ path: null, text: m })),
    ...Object.entries(errors.fields).flatMap(([path, ms]) =>
      // Some messages already start with their field ("template: unknown placeholder…").
      ms.map((m) => ({ path, text: m.startsWith(`${path}: `) ? `${describe(path)}: ${m.slice(path.length + 2)}` : `${describe(path)}: ${m}` })),
    ),
  ];
}

function under(key: string, path: string): boolean {
  return key === path || key.startsWith(`${path}.`) || key.startsWith(`${path}[`);
}

/**
 * The errors without the messages of `paths` (and of the paths under them): a field's
 * messages go as soon as its value changes, the next submit checks it again. The same object
 * when none goes.
 */
export function clearFields(errors: FormErrors, paths: string[]): FormErrors {
  const keys = Object.keys(errors.fields);
  const kept = keys.filter((k) => !paths.some((p) => under(k, p)));
  if (kept.length === keys.length) return errors;
  return { fields: Object.fromEntries(kept.map((k) => [k, errors.fields[k]])), general: errors.general };
}

/** `next` only drops messages of `prev` (what `clearFields` makes): no new refusal to point at. */
export function onlyCleared(prev: FormErrors, next: FormErrors): boolean {
  if (next.general !== prev.general && next.general.join("\n") !== prev.general.join("\n")) return false;
  return Object.entries(next.fields).every(([k, ms]) => prev.fields[k] === ms);
}
