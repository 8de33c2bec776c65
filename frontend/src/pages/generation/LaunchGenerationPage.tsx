import { useEffect, useMemo, useRef, useState } from "preact/hooks";
import { Crumbs } from "../../components/Crumbs";
import { sendJson, Select, TextArea, TextField, NumberField } from "../../components/form";
import { LoadErrorMessage } from "../../components/PageMessage";
import { TopBar } from "../../components/TopBar";
import { useResource } from "../../hooks/useResource";
import { type FormErrors, hasErrors, messagesFor, NO_ERRORS } from "../../lib/formErrors";
import { navigate, paths } from "../../router";
import type { GenerationJob, Me, PrologRule } from "../../types";
import {
  buildGeneration,
  clearFields,
  type GenerationField,
  type GenerationForm,
  type GenerationOptions,
  initialGenerationForm,
  NEW_PROJECT,
  OTHER_MODEL,
  placeErrors,
  settledBy,
} from "./launchForm";

/** Launch a generation job: the same checks as `manage.py generate_fallacies` (server side),
 * each refusal shown at its field. */
export function LaunchGenerationPage({ me }: { me: Me }) {
  const rules = useResource<PrologRule[]>("/api/evaluation/prolog-rules/");
  const options = useResource<GenerationOptions>("/api/evaluation/generation-options/");
  const types = useMemo(() => [...new Set((rules.data ?? []).map((r) => r.type))].sort(), [rules.data]);
  const [form, setForm] = useState<GenerationForm | null>(null);
  const [errors, setErrors] = useState<FormErrors>(NO_ERRORS);
  const [busy, setBusy] = useState(false);
  const alertRef = useRef<HTMLDivElement>(null);

  useEffect(() => {
    if (options.data && rules.data && !form) setForm(initialGenerationForm(options.data, types[0] ?? ""));
  }, [options.data, rules.data]);
  useEffect(() => {
    if (hasErrors(errors)) alertRef.current?.focus();
  }, [errors]);

  const crumbs = (
    <TopBar me={me}>
      <Crumbs items={[{ label: "Generation", href: paths.generation() }, { label: "Generate items" }]} />
    </TopBar>
  );
  const failed = options.error ?? rules.error;
  if (failed || !options.data || !form) {
    return (
      <>
        {crumbs}
        <main class="page narrow" data-testid="generation-launch-page">
          <h1>Generate items</h1>
          {failed ? <LoadErrorMessage error={failed} onRetry={() => void Promise.all([options.reload(), rules.reload()])} /> : <p class="muted">Loading…</p>}
        </main>
      </>
    );
  }
  const opts = options.data;
  const update = (field: GenerationField, value: string) => {
    setForm({ ...form, [field]: value });
    setErrors((e) => clearFields(e, settledBy(field)));
  };
  const at = (field: GenerationField) => messagesFor(errors, field);

  const submit = async (e: Event) => {
    e.preventDefault();
    if (busy) return;
    const built = buildGeneration(form, opts);
    if (!built.body) return setErrors(built.errors);
    setBusy(true);
    try {
      const res = await sendJson("POST", "/api/evaluation/generation-jobs/", built.body);
      if (res.status === 201) navigate(paths.generationJob((res.data as GenerationJob).id));
      else setErrors(placeErrors(res.data, form, res.status));
    } catch {
      setErrors({ fields: {}, general: ["The server cannot be reached; nothing was started."] });
    } finally {
      setBusy(false);
    }
  };

  const projectOptions = [
    ...opts.projects.map((p) => ({ value: p.name, label: p.name })),
    ...(opts.can_create ? [{ value: NEW_PROJECT, label: "A new item project (SmartyPat form)…" }] : []),
  ];
  const modelOptions = [...opts.models.map((m, i) => ({ value: String(i), label: m.label })), { value: OTHER_MODEL, label: "Another model (backend, name, settings)…" }];
  const fieldCount = Object.keys(errors.fields).length;
  const noProject = !projectOptions.length;

  return (
    <>
      {crumbs}
      <main class="page narrow" data-testid="generation-launch-page">
        <h1>Generate items</h1>
        <p class="muted">
          Prolog: the model proposes facts, swipl keeps the combinations the type's rule accepts, the model writes one sentence for each, the judge rates them 0–3 (three times). Direct: sentences from the definition and examples (the
          baseline).
        </p>
        <form onSubmit={submit} class="panel launch-section" noValidate data-testid="generation-form">
          <div tabIndex={-1} ref={alertRef} class="summary-anchor">
            {hasErrors(errors) && (
              <div class="form-error error-summary" role="alert" data-testid="gen-errors">
                <p>
                  <strong>Nothing was started.</strong>
                  {fieldCount > 0 && ` ${fieldCount === 1 ? "One field needs" : `${fieldCount} fields need`} a change: see the message${fieldCount === 1 ? "" : "s"} below it.`}
                </p>
                {errors.general.length > 0 && (
                  <ul>
                    {errors.general.map((m, i) => (
                      <li key={i}>{m}</li>
                    ))}
                  </ul>
                )}
              </div>
            )}
          </div>
          {noProject ? (
            <p class="form-error" data-testid="gen-no-project">
              You administer no item project that fits generation (an item project with the SmartyPat form's ranked types), and you may not create one. A project admin or a superuser can.
            </p>
          ) : (
            <div class="field-row">
              <Select id="gen-project" label="Item project" path="project" class="grow" value={form.project} onValue={(v) => update("project", v)} options={projectOptions} messages={at("project")} testId="gen-project" hint="Item projects with the SmartyPat form that you administer." />
              {form.project === NEW_PROJECT && (
                <TextField id="gen-new-name" label="New project's name" path="newName" class="grow" value={form.newName} onValue={(v) => update("newName", v)} messages={at("newName")} testId="gen-new-name" />
              )}
            </div>
          )}
          <div class="field-row">
            <Select
              id="gen-type"
              label="Fallacy type"
              path="type"
              class="grow"
              value={form.type}
              onValue={(v) => update("type", v)}
              options={types.map((t) => ({ value: t, label: t }))}
              placeholder={types.length ? undefined : "no rule file yet"}
              messages={at("type")}
              testId="gen-type"
            />
            <Select
              id="gen-method"
              label="Method"
              path="method"
              value={form.method}
              onValue={(v) => update("method", v)}
              options={[
                { value: "prolog", label: "prolog (checked by swipl)" },
                { value: "direct", label: "direct (baseline)" },
              ]}
              messages={at("method")}
              testId="gen-method"
            />
          </div>
          <Select id="gen-model" label="Model" path="model" value={form.model} onValue={(v) => update("model", v)} options={modelOptions} messages={at("model")} testId="gen-model-choice" hint={form.model === OTHER_MODEL ? undefined : "A model on this machine: nothing leaves it."} />
          {form.model === OTHER_MODEL && <OtherModel form={form} opts={opts} update={update} at={at} />}
          <NumberField id="gen-n" label="Facts (or sentences) asked for" path="n" value={form.n} onValue={(v) => update("n", v)} min={1} max={200} messages={at("n")} testId="gen-n" />
          <div class="form-actions">
            <button class="btn primary" type="submit" disabled={busy || noProject} data-testid="gen-submit">
              {busy ? "Launching…" : "Launch"}
            </button>
          </div>
        </form>
      </main>
    </>
  );
}

/** A model typed in: backend, name or path, the operator's credential (openai), settings. */
function OtherModel({ form, opts, update, at }: { form: GenerationForm; opts: GenerationOptions; update: (f: GenerationField, v: string) => void; at: (f: GenerationField) => string[] }) {
  return (
    <div class="custom-model" data-testid="gen-other-model">
      <div class="field-row">
        <Select id="gen-backend" label="Backend" path="backend" value={form.backend} onValue={(v) => update("backend", v)} options={opts.backends.map((b) => ({ value: b, label: b }))} messages={at("backend")} testId="gen-backend" />
        <TextField
          id="gen-model-name"
          label="Model name or path"
          path="modelName"
          class="grow"
          value={form.modelName}
          onValue={(v) => update("modelName", v)}
          placeholder="e.g. HuggingFaceTB/SmolLM2-135M-Instruct or /models/my-model"
          messages={at("modelName")}
          testId="gen-model"
        />
      </div>
      {form.backend === "openai" && (
        <Select
          id="gen-credential"
          label="Credential (the operator's, by name)"
          path="credential"
          value={form.credential}
          onValue={(v) => update("credential", v)}
          options={opts.credentials.map((c) => ({ value: c.name, label: `${c.name} (${c.base_urls.join(", ")})` }))}
          placeholder="none (a server on this machine)"
          messages={at("credential")}
          testId="gen-credential"
        />
      )}
      <TextArea id="gen-settings" label="Backend settings (JSON, no key)" path="settings" class="code-field" value={form.settings} onValue={(v) => update("settings", v)} rows={3} messages={at("settings")} testId="gen-settings" />
    </div>
  );
}
