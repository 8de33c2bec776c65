import { Field, errorAttrs } from "../../components/Field";
import { type FormErrors, messagesFor } from "../../lib/formErrors";
import { LEVEL_NAMES } from "../../lib/format";
import type { LaunchForm } from "../../lib/launch";
import type { FormFieldOption, GoldOption } from "../../types";

interface Props {
  form: LaunchForm;
  update: (patch: Partial<LaunchForm>) => void;
  golds: GoldOption[];
  levels: number[];
  errors: FormErrors;
  /** The chosen gold version's texts (null: an item project). */
  texts?: number | null;
  /** The form's default sample of texts (its default Limit). */
  sample?: number | null;
}

const value = (e: Event) => (e.target as HTMLInputElement).value;

export function GoldSection({ form, update, golds, errors }: Pick<Props, "form" | "update" | "golds" | "errors">) {
  const msgs = messagesFor(errors, "gold_standard", true);
  return (
    <fieldset class="panel launch-section">
      <legend>Gold version</legend>
      {golds.length === 0 ? (
        <p class="muted">This project has no gold version yet: adjudicate or import one first.</p>
      ) : (
        <Field id="launch-gold" label="Score against" path="gold_standard" messages={msgs} required>
          <select
            id="launch-gold"
            value={form.goldStandard ?? ""}
            onChange={(e) => update({ goldStandard: Number(value(e)) || null })}
            required
            data-testid="gold-select"
            {...errorAttrs("gold_standard", msgs)}
          >
            {golds.map((g) => (
              <option key={g.id} value={g.id}>
                v{g.version} — {g.status}, {g.documents} texts
              </option>
            ))}
          </select>
        </Field>
      )}
      {golds.find((g) => g.id === form.goldStandard)?.status === "draft" && (
        <p class="note" role="alert" data-testid="gold-draft-warning">
          This gold version is a draft: adjudication may still change it, so scores against it can change too. Publish it first
          {golds.some((g) => g.status === "published") ? " or choose a published version" : ""} to score against a settled gold.
        </p>
      )}
    </fieldset>
  );
}

/** Quick choices of the Limit: the default sample, or every text of the gold version. */
function LimitChoices({ limit, texts, sample, onLimit }: { limit: string; texts: number; sample: number | null; onLimit: (t: string) => void }) {
  const showSample = sample != null && sample < texts;
  return (
    <div class="limit-choices" role="group" aria-label="How many texts">
      {showSample && (
        <button type="button" class="btn ghost small" aria-pressed={limit === String(sample)} onClick={() => onLimit(String(sample))} data-testid="limit-sample">
          A sample of {sample} texts
        </button>
      )}
      <button type="button" class="btn ghost small" aria-pressed={limit.trim() === ""} onClick={() => onLimit("")} data-testid="limit-all">
        All {texts} texts
      </button>
    </div>
  );
}

/** Item projects: the question of the form the runs answer (each item's gold is its key). */
export function FieldSection({ field, fields, onField, errors }: { field: string; fields: FormFieldOption[]; onField: (name: string) => void; errors: FormErrors }) {
  const msgs = messagesFor(errors, "field", true);
  return (
    <fieldset class="panel launch-section">
      <legend>Question</legend>
      {fields.length === 0 ? (
        <p class="muted">This project's form has no question a model can answer (ratings are for people and judges).</p>
      ) : (
        <Field id="launch-field" label="Answer the form field" hint="Each item's gold for this field is the key; the run is scored per task." path="field" messages={msgs} required>
          <select id="launch-field" value={field} required onChange={(e) => onField(value(e))} data-testid="field-select" {...errorAttrs("field", msgs)}>
            {fields.map((f) => (
              <option key={f.name} value={f.name}>
                {f.title || f.name} — {f.kind}
              </option>
            ))}
          </select>
        </Field>
      )}
    </fieldset>
  );
}

function NumberField({
  id,
  label,
  path,
  text,
  onText,
  errors,
  hint,
  step,
  min,
  placeholder,
  testId,
}: {
  id: string;
  label: string;
  path: string;
  text: string;
  onText: (t: string) => void;
  errors: FormErrors;
  hint?: string;
  step?: string;
  min?: number;
  placeholder?: string;
  testId: string;
}) {
  const msgs = messagesFor(errors, path, true);
  return (
    <Field id={id} label={label} hint={hint} path={path} messages={msgs} class="narrow-input">
      <input id={id} type="number" inputMode="decimal" step={step} min={min} value={text} placeholder={placeholder} onInput={(e) => onText(value(e))} data-testid={testId} {...errorAttrs(path, msgs)} />
    </Field>
  );
}

export function RunSettings({ form, update, levels, errors, texts, sample }: Omit<Props, "golds">) {
  const levelMsgs = messagesFor(errors, "level");
  const paramsMsgs = messagesFor(errors, "params");
  const nameMsgs = messagesFor(errors, "name");
  return (
    <fieldset class="panel launch-section">
      <legend>Settings</legend>
      <div class="field-row">
        {levels.length > 0 && (
          <Field id="launch-level" label="Level" path="level" messages={levelMsgs}>
            <select id="launch-level" value={form.level} onChange={(e) => update({ level: Number(value(e)) })} data-testid="level-select" {...errorAttrs("level", levelMsgs)}>
              {levels.map((l) => (
                <option key={l} value={l}>
                  {l} — {LEVEL_NAMES[l] ?? `level ${l}`}
                </option>
              ))}
            </select>
          </Field>
        )}
        <div class="limit-field">
          <NumberField id="launch-limit" label="Limit" path="limit" text={form.limit} onText={(t) => update({ limit: t })} errors={errors} hint="First N texts; empty = all." min={1} placeholder="all" testId="limit-input" />
          {texts != null && texts > 0 && <LimitChoices limit={form.limit} texts={texts} sample={sample ?? null} onLimit={(t) => update({ limit: t })} />}
        </div>
        <NumberField id="launch-shards" label="Shards" path="shards" text={form.shards} onText={(t) => update({ shards: t })} errors={errors} hint="Parts the run is cut into (blank: parts of a few dozen requests). Workers take them as they free up, each loading the model once." min={1} testId="shards-input" />
        <Field id="launch-name" label="Name (optional)" class="grow" hint="Default: model · variant · level." path="name" messages={nameMsgs}>
          <input id="launch-name" type="text" value={form.name} onInput={(e) => update({ name: value(e) })} data-testid="name-input" {...errorAttrs("name", nameMsgs)} />
        </Field>
      </div>
      <h3 class="subhead">Decoding</h3>
      {paramsMsgs.length > 0 && (
        <ul class="field-error" id="err-params" data-testid="field-error" data-field="params">
          {paramsMsgs.map((m, i) => (
            <li key={i}>{m}</li>
          ))}
        </ul>
      )}
      <div class="field-row">
        <NumberField id="launch-max-new-tokens" label="max_new_tokens" path="params.max_new_tokens" text={form.maxNewTokens} onText={(t) => update({ maxNewTokens: t })} errors={errors} min={1} testId="max-new-tokens-input" />
        <NumberField id="launch-temperature" label="temperature" path="params.temperature" text={form.temperature} onText={(t) => update({ temperature: t })} errors={errors} step="0.05" min={0} testId="temperature-input" />
        <NumberField id="launch-top-p" label="top_p" path="params.top_p" text={form.topP} onText={(t) => update({ topP: t })} errors={errors} step="0.05" min={0} testId="top-p-input" />
        <NumberField id="launch-seed" label="seed" path="params.seed" text={form.seed} onText={(t) => update({ seed: t })} errors={errors} testId="seed-input" />
      </div>
    </fieldset>
  );
}
