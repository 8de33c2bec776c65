import { useState } from "preact/hooks";
import { ensureCsrf, http } from "../../api";
import { Field, errorAttrs } from "../../components/Field";
import { ErrorSummary } from "../../components/FieldErrors";
import { type FormErrors, NO_ERRORS, messagesFor, toFormErrors } from "../../lib/formErrors";
import { parseJsonObject, toJsonText } from "../../lib/jsonInput";
import { parseNumber } from "../../lib/launch";
import type { Variant, VariantInput } from "../../types";

const KINDS = ["zero-shot", "guided", "few-shot", "chain-of-thought"];
const PARSERS = ["keyword", "strict", "json"];

/** "Copy and edit": a form prefilled from a variant that POSTs a new version of it, owned by
 *  the project (a copy of a built-in becomes the project's own; other projects never see it). */
export function VariantEditor({
  projectId,
  base,
  kinds,
  parsers,
  nextVersion,
  onCreated,
  onCancel,
}: {
  projectId: number;
  base: Variant;
  kinds: string[];
  parsers: string[];
  nextVersion: number;
  onCreated: (v: Variant) => void;
  onCancel: () => void;
}) {
  const [name, setName] = useState(base.name);
  const [kind, setKind] = useState(base.kind);
  const [parser, setParser] = useState(base.parser);
  const [shots, setShots] = useState(String(base.shots ?? 0));
  const [seed, setSeed] = useState(String(base.seed ?? 0));
  const [unparseable, setUnparseable] = useState(base.unparseable ?? "wrong");
  // span prompts are read by the scorer's parsers; item tasks choose what an unreadable answer counts as
  const isItemTask = base.task !== "mafalda";
  const [template, setTemplate] = useState(base.template);
  const [decoding, setDecoding] = useState(toJsonText(base.decoding as Record<string, unknown>));
  const [description, setDescription] = useState(base.description ?? "");
  const [errors, setErrors] = useState<FormErrors>(NO_ERRORS);
  const [busy, setBusy] = useState(false);
  const id = `variant-edit-${base.id}`;

  const submit = async (e: Event) => {
    e.preventDefault();
    const local: FormErrors = { fields: {}, general: [] };
    const dec = parseJsonObject(decoding, "decoding");
    if (!dec.ok) local.fields.decoding = [dec.error.replace(/^decoding: /, "")];
    const nShots = parseNumber(shots, true);
    if (nShots.error) local.fields.shots = [nShots.error];
    const nSeed = parseNumber(seed, true);
    if (nSeed.error) local.fields.seed = [nSeed.error];
    if (Object.keys(local.fields).length) {
      setErrors(local);
      return;
    }
    const body: VariantInput = {
      project: projectId,
      task: base.task,
      name: name.trim(),
      kind,
      template,
      parser,
      shots: nShots.value ?? 0,
      seed: nSeed.value ?? 0,
      decoding: dec.ok ? dec.value : {},
      description,
    };
    if (isItemTask) body.unparseable = unparseable;
    setBusy(true);
    try {
      await ensureCsrf();
      const res = await http("POST", "/api/evaluation/variants/", body);
      if (res.status === 201 || res.status === 200) {
        setErrors(NO_ERRORS);
        onCreated(res.data as Variant);
      } else {
        setErrors(toFormErrors(res.data, res.status));
      }
    } catch {
      setErrors({ fields: {}, general: ["The server cannot be reached; nothing was saved."] });
    } finally {
      setBusy(false);
    }
  };

  const m = (field: string) => messagesFor(errors, field, true);
  const allKinds = [...new Set([...KINDS, ...kinds, base.kind])];
  const allParsers = [...new Set([...PARSERS, ...parsers, base.parser])];

  return (
    <form class="variant-editor" onSubmit={submit} data-testid="variant-editor" aria-label={`New version of ${base.name}`}>
      <h3>
        Copy of {base.name} v{base.version}
      </h3>
      <ErrorSummary errors={errors} title="The variant was not saved:" testId="variant-errors" />
      <div class="field-row">
        <Field
          id={`${id}-name`}
          label="Name"
          class="grow"
          hint={name.trim() === base.name ? `Saved as ${base.name} v${nextVersion}.` : "A new name starts at version 1 (or the next free one)."}
          path="name"
          messages={m("name")}
        >
          <input id={`${id}-name`} type="text" value={name} onInput={(e) => setName((e.target as HTMLInputElement).value)} {...errorAttrs("name", m("name"))} />
        </Field>
        <Field id={`${id}-kind`} label="Kind" path="kind" messages={m("kind")}>
          <select id={`${id}-kind`} value={kind} onChange={(e) => setKind((e.target as HTMLSelectElement).value)}>
            {allKinds.map((k) => (
              <option key={k} value={k}>
                {k}
              </option>
            ))}
          </select>
        </Field>
        <Field id={`${id}-parser`} label="Parser" path="parser" messages={m("parser")}>
          <select id={`${id}-parser`} value={parser} onChange={(e) => setParser((e.target as HTMLSelectElement).value)}>
            {allParsers.map((p) => (
              <option key={p} value={p}>
                {p}
              </option>
            ))}
          </select>
        </Field>
        <Field id={`${id}-shots`} label="Shots" class="narrow-input" path="shots" messages={m("shots")}>
          <input id={`${id}-shots`} type="number" min={0} value={shots} onInput={(e) => setShots((e.target as HTMLInputElement).value)} {...errorAttrs("shots", m("shots"))} />
        </Field>
        <Field id={`${id}-seed`} label="Seed" class="narrow-input" path="seed" messages={m("seed")}>
          <input id={`${id}-seed`} type="number" value={seed} onInput={(e) => setSeed((e.target as HTMLInputElement).value)} {...errorAttrs("seed", m("seed"))} />
        </Field>
        {isItemTask && (
          <Field id={`${id}-unparseable`} label="Unparseable answer" hint="Counted and reported either way." path="unparseable" messages={m("unparseable")}>
            <select id={`${id}-unparseable`} value={unparseable} onChange={(e) => setUnparseable((e.target as HTMLSelectElement).value)} data-testid="variant-unparseable">
              <option value="wrong">counts as wrong</option>
              <option value="random">a seeded random valid answer</option>
            </select>
          </Field>
        )}
      </div>
      <Field id={`${id}-template`} label="Template" hint="Placeholders in braces, e.g. {text}; the server checks them." path="template" messages={m("template")}>
        <textarea
          id={`${id}-template`}
          class="code-input"
          rows={12}
          value={template}
          onInput={(e) => setTemplate((e.target as HTMLTextAreaElement).value)}
          spellcheck={false}
          data-testid="variant-template-input"
          {...errorAttrs("template", m("template"))}
        />
      </Field>
      <div class="field-row">
        <Field id={`${id}-decoding`} label="Decoding (JSON object)" class="grow" path="decoding" messages={m("decoding")}>
          <textarea
            id={`${id}-decoding`}
            class="code-input"
            rows={3}
            value={decoding}
            placeholder='{"max_new_tokens": 48}'
            onInput={(e) => setDecoding((e.target as HTMLTextAreaElement).value)}
            spellcheck={false}
            {...errorAttrs("decoding", m("decoding"))}
          />
        </Field>
        <Field id={`${id}-description`} label="Description" class="grow" path="description" messages={m("description")}>
          <textarea id={`${id}-description`} rows={3} value={description} onInput={(e) => setDescription((e.target as HTMLTextAreaElement).value)} />
        </Field>
      </div>
      <div class="form-actions">
        <button type="submit" class="btn primary small" disabled={busy} data-testid="variant-save">
          {busy ? "Saving…" : "Save as new version"}
        </button>
        <button type="button" class="btn small ghost" onClick={onCancel}>
          Cancel
        </button>
      </div>
    </form>
  );
}
