import { Field, errorAttrs } from "../../components/Field";
import { FieldError } from "../../components/FieldErrors";
import { type FormErrors, messagesFor } from "../../lib/formErrors";
import { errorId } from "../../lib/ids";
import { type CustomModelRow, type LaunchPlan, customKey, modelHint, modelPath, newCustomRow, suggestedKey } from "../../lib/launch";
import type { CredentialOption, RegisteredModel, SuggestedModel } from "../../types";

interface Props {
  suggested: SuggestedModel[];
  /** The operator's registered models, offered by name for an added model. */
  registered?: RegisteredModel[];
  /** Hub id patterns a project admin may also name. */
  hubAllowed?: string[];
  backends: string[];
  credentials: CredentialOption[];
  checked: number[];
  custom: CustomModelRow[];
  onChecked: (checked: number[]) => void;
  onCustom: (rows: CustomModelRow[]) => void;
  errors: FormErrors;
  plan: LaunchPlan | null;
}

function settingsText(settings: Record<string, unknown>): string {
  const entries = Object.entries(settings ?? {});
  return entries.map(([k, v]) => `${k}: ${typeof v === "string" ? v : JSON.stringify(v)}`).join(", ");
}

export function ModelPicker({ suggested, registered = [], hubAllowed = [], backends, credentials, checked, custom, onChecked, onCustom, errors, plan }: Props) {
  const toggle = (i: number, on: boolean) => onChecked(on ? [...checked.filter((x) => x !== i), i].sort((a, b) => a - b) : checked.filter((x) => x !== i));
  const change = (key: string, patch: Partial<CustomModelRow>) => onCustom(custom.map((r) => (r.key === key ? { ...r, ...patch } : r)));
  const listErrors = messagesFor(errors, "models");

  return (
    <fieldset class="panel launch-section" data-testid="model-picker">
      <legend>Models</legend>
      <p class="muted small">One run is started for each model and prompt variant.</p>
      <FieldError messages={listErrors} id={errorId("models")} path="models" />
      {suggested.length > 0 && (
        <ul class="choice-list">
          {suggested.map((m, i) => {
            const path = modelPath(plan, suggestedKey(i));
            const msgs = path ? messagesFor(errors, path, true) : [];
            return (
              <li key={i} class={`choice${msgs.length ? " has-error" : ""}`} data-testid="model-option" data-backend={m.backend} data-model={m.model}>
                <label class="check">
                  <input
                    type="checkbox"
                    checked={checked.includes(i)}
                    onChange={(e) => toggle(i, (e.target as HTMLInputElement).checked)}
                    aria-describedby={msgs.length && path ? errorId(path) : undefined}
                  />
                  <span class="choice-name">{m.label}</span>
                  <span class="badge subtle">{m.backend}</span>
                </label>
                {(m.model || Object.keys(m.settings ?? {}).length > 0) && (
                  <p class="choice-meta mono-cell" title={m.model}>
                    {m.model}
                    {Object.keys(m.settings ?? {}).length > 0 && <span class="muted"> · {settingsText(m.settings)}</span>}
                  </p>
                )}
                {path && <FieldError messages={msgs} id={errorId(path)} path={path} />}
              </li>
            );
          })}
        </ul>
      )}
      {custom.map((row, n) => {
        const path = modelPath(plan, customKey(row));
        const own = path ? messagesFor(errors, path) : [];
        const backendMsgs = path ? messagesFor(errors, `${path}.backend`) : [];
        const modelMsgs = path ? messagesFor(errors, `${path}.model`) : [];
        const settingsMsgs = path ? messagesFor(errors, `${path}.settings`, true) : [];
        const credentialPath = path ? `${path}.settings.credential` : undefined;
        const id = `custom-${row.key}`;
        return (
          <div class="custom-model" key={row.key} data-testid="custom-model">
            <div class="custom-model-head">
              <h3>Added model {n + 1}</h3>
              <button type="button" class="btn small ghost danger" onClick={() => onCustom(custom.filter((r) => r.key !== row.key))} aria-label={`Remove added model ${n + 1}`}>
                Remove
              </button>
            </div>
            {path && <FieldError messages={own} id={errorId(path)} path={path} />}
            <div class="field-row">
              <Field id={`${id}-backend`} label="Backend" path={path ? `${path}.backend` : undefined} messages={backendMsgs}>
                <select
                  id={`${id}-backend`}
                  value={row.backend}
                  onChange={(e) => change(row.key, { backend: (e.target as HTMLSelectElement).value })}
                  data-testid="custom-backend"
                  {...(path ? errorAttrs(`${path}.backend`, backendMsgs) : {})}
                >
                  {[...new Set([...backends, row.backend])].map((b) => (
                    <option key={b} value={b}>
                      {b}
                    </option>
                  ))}
                </select>
              </Field>
              <Field id={`${id}-model`} label="Model" class="grow" path={path ? `${path}.model` : undefined} messages={modelMsgs} hint={modelHint(row.backend, registered, hubAllowed)}>
                <input
                  id={`${id}-model`}
                  type="text"
                  value={row.model}
                  list={row.backend === "transformers" || row.backend === "vllm" ? `${id}-registered` : undefined}
                  placeholder={row.backend === "openai" ? "the server's model name" : "a registered model's name"}
                  onInput={(e) => change(row.key, { model: (e.target as HTMLInputElement).value })}
                  data-testid="custom-model-name"
                  spellcheck={false}
                  {...(path ? errorAttrs(`${path}.model`, modelMsgs) : {})}
                />
                <datalist id={`${id}-registered`} data-testid="registered-models">
                  {registered
                    .filter((m) => m.backends.includes(row.backend))
                    .map((m) => (
                      <option key={m.name} value={m.name} />
                    ))}
                </datalist>
              </Field>
            </div>
            {row.backend === "openai" && (
              <Field id={`${id}-credential`} label="Credential (the operator's, by name)" path={credentialPath} messages={[]}>
                <select
                  id={`${id}-credential`}
                  value={row.credential ?? ""}
                  onChange={(e) => change(row.key, { credential: (e.target as HTMLSelectElement).value })}
                  data-testid="custom-credential"
                >
                  <option value="">none (a server on this machine)</option>
                  {credentials.map((c) => (
                    <option key={c.name} value={c.name}>
                      {c.name} ({c.base_urls.join(", ")})
                    </option>
                  ))}
                </select>
              </Field>
            )}
            <Field
              id={`${id}-settings`}
              label="Settings (JSON object, optional)"
              path={path ? `${path}.settings` : undefined}
              messages={settingsMsgs}
            >
              <textarea
                id={`${id}-settings`}
                class="code-input"
                rows={3}
                value={row.settingsText}
                placeholder={row.backend === "openai" ? '{"base_url": "http://127.0.0.1:8000/v1"}' : '{"batch_size": 4}'}
                onInput={(e) => change(row.key, { settingsText: (e.target as HTMLTextAreaElement).value })}
                data-testid="custom-settings"
                spellcheck={false}
                {...(path ? errorAttrs(`${path}.settings`, settingsMsgs) : {})}
              />
            </Field>
          </div>
        );
      })}
      <button
        type="button"
        class="btn small"
        onClick={() => onCustom([...custom, newCustomRow(backends.includes("transformers") ? "transformers" : backends[0] ?? "transformers")])}
        data-testid="add-model"
      >
        + Add a model
      </button>
    </fieldset>
  );
}
