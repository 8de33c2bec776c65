import { useEffect, useRef, useState } from "preact/hooks";
import { ensureCsrf, http } from "../../api";
import { Crumbs } from "../../components/Crumbs";
import { ErrorSummary } from "../../components/FieldErrors";
import { ForbiddenMessage, LoadErrorMessage } from "../../components/PageMessage";
import { TopBar } from "../../components/TopBar";
import { useProject } from "../../hooks/useProject";
import { useResource } from "../../hooks/useResource";
import { type FormErrors, NO_ERRORS, hasErrors, toFormErrors } from "../../lib/formErrors";
import { type LaunchForm, type LaunchPlan, answerableFields, buildLaunch, canSend, describeLaunchPath, initialForm, preselectedVariants, variantsForField } from "../../lib/launch";
import { queryString } from "../../lib/paging";
import { linkHandler, navigate, paths } from "../../router";
import type { LaunchOptions, LaunchResponse, Me, Variant } from "../../types";
import { LaunchEstimate } from "./LaunchEstimate";
import { ModelPicker } from "./ModelPicker";
import { FieldSection, GoldSection, RunSettings } from "./RunSettings";
import { VariantPicker } from "./VariantPicker";

export function LaunchPage({ me, projectId }: { me: Me; projectId: number }) {
  const project = useProject(projectId);
  const options = useResource<LaunchOptions>(`/api/evaluation/launch-options/${queryString({ project: projectId })}`);
  const [form, setForm] = useState<LaunchForm | null>(null);
  const [variants, setVariants] = useState<Variant[]>([]);
  const [sent, setSent] = useState<{ errors: FormErrors; plan: LaunchPlan | null }>({ errors: NO_ERRORS, plan: null });
  const [busy, setBusy] = useState(false);
  const summaryRef = useRef<HTMLDivElement>(null);

  useEffect(() => {
    if (options.data && !form) {
      setForm(initialForm(options.data));
      setVariants(options.data.variants);
    }
  }, [options.data]);

  useEffect(() => {
    if (hasErrors(sent.errors)) summaryRef.current?.focus();
  }, [sent]);

  const runsHref = paths.runs(projectId);
  const crumbs = (
    <Crumbs
      items={[
        { label: project?.name ?? `Project ${projectId}`, href: paths.project(projectId) },
        { label: "Runs", href: runsHref },
        { label: "Launch" },
      ]}
    />
  );

  let body;
  if (options.error && !options.data) body = <LoadErrorMessage error={options.error} onRetry={() => void options.reload()} />;
  else if (!options.data || !form) body = <p class="muted">Loading…</p>;
  else if (!options.data.can_launch)
    body = (
      <ForbiddenMessage>
        <p>Only the project's admins launch runs. You can still follow them on the runs page.</p>
      </ForbiddenMessage>
    );
  else {
    const opts = options.data;
    const update = (patch: Partial<LaunchForm>) => setForm((f) => (f ? { ...f, ...patch } : f));
    const isItems = opts.kind === "items";
    const fields = isItems ? answerableFields(opts) : [];
    const field = fields.find((f) => f.name === form.field);
    const offered = variantsForField(variants, field);
    // a new field: its task's variants, the plainest one ticked
    const chooseField = (name: string) => update({ field: name, variants: preselectedVariants(variantsForField(variants, fields.find((f) => f.name === name))) });
    const runCount = (form.suggested.length + form.custom.length) * form.variants.length;
    const variantName = (id: number) => {
      const v = variants.find((x) => x.id === id);
      return v ? `${v.name} v${v.version}` : `#${id}`;
    };
    const describe = (path: string) => (sent.plan ? describeLaunchPath(path, sent.plan, variantName) : path);

    const submit = async (e: Event) => {
      e.preventDefault();
      if (busy) return;
      const plan = buildLaunch(projectId, form, opts.suggested_models);
      if (!canSend(plan)) {
        setSent({ errors: plan.errors, plan });
        return;
      }
      setBusy(true);
      try {
        await ensureCsrf();
        const res = await http("POST", "/api/evaluation/runs/", plan.body);
        if (res.status === 201 || res.status === 200) {
          const runs = (res.data as LaunchResponse)?.runs ?? [];
          navigate(runs.length === 1 ? paths.run(runs[0].id) : runsHref);
          return;
        }
        setSent({ errors: toFormErrors(res.data, res.status), plan });
      } catch {
        setSent({ errors: { fields: {}, general: ["The server cannot be reached; nothing was started."] }, plan });
      } finally {
        setBusy(false);
      }
    };

    body = (
      <form class="launch-form" onSubmit={submit} noValidate data-testid="launch-form">
        <div tabIndex={-1} ref={summaryRef} class="summary-anchor">
          <ErrorSummary errors={sent.errors} describe={describe} testId="launch-errors" />
        </div>
        {isItems ? <FieldSection field={form.field} fields={fields} onField={chooseField} errors={sent.errors} /> : <GoldSection form={form} update={update} golds={opts.gold_standards} errors={sent.errors} />}
        <ModelPicker
          suggested={opts.suggested_models}
          registered={opts.registered_models ?? []}
          hubAllowed={opts.hub_allowed ?? []}
          backends={opts.backends}
          credentials={opts.credentials ?? []}
          checked={form.suggested}
          custom={form.custom}
          onChecked={(suggested) => update({ suggested })}
          onCustom={(custom) => update({ custom })}
          errors={sent.errors}
          plan={sent.plan}
        />
        <VariantPicker
          projectId={projectId}
          variants={offered}
          checked={form.variants}
          onChecked={(ids) => update({ variants: ids })}
          onCreated={(v) => {
            setVariants((vs) => [v, ...vs.filter((x) => x.id !== v.id)]);
            setForm((f) => (f ? { ...f, variants: [...f.variants.filter((x) => x !== v.id), v.id] } : f));
          }}
          canEdit={opts.can_launch}
          errors={sent.errors}
          plan={sent.plan}
        />
        <RunSettings
          form={form}
          update={update}
          levels={isItems ? [] : opts.levels?.length ? opts.levels : [2, 1, 0]}
          errors={sent.errors}
          texts={isItems ? null : (opts.gold_standards.find((g) => g.id === form.goldStandard)?.documents ?? null)}
          sample={opts.defaults.limit ?? null}
        />
        {!isItems && <LaunchEstimate form={form} suggested={opts.suggested_models} />}
        <div class="launch-bar">
          <span class="muted" data-testid="launch-count" aria-live="polite">
            {runCount === 0 ? "Choose at least one model and one prompt variant." : runCount === 1 ? "Starts 1 run." : `Starts ${runCount} runs (one per model and variant).`}
          </span>
          <a class="btn ghost" href={runsHref} onClick={linkHandler(runsHref)}>
            Cancel
          </a>
          <button type="submit" class="btn primary" disabled={busy} data-testid="launch-submit">
            {busy ? "Starting…" : "Run"}
          </button>
        </div>
      </form>
    );
  }

  return (
    <>
      <TopBar me={me}>{crumbs}</TopBar>
      <main class="page" data-testid="launch-page">
        {options.data?.can_launch !== false && !(options.error && !options.data) && (
          <div class="page-head">
            <div>
              <h1>Launch a run</h1>
              <p class="muted">
                {options.data?.kind === "items"
                  ? "Each chosen model answers the chosen question of every item with each chosen prompt variant; the runs are queued on the GPU workers and scored against the items' gold."
                  : "Each chosen model answers each chosen prompt variant over the texts of the gold version; the runs are queued on the GPU workers."}
              </p>
            </div>
          </div>
        )}
        {body}
      </main>
    </>
  );
}
