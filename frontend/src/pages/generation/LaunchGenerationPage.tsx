import { useMemo, useState } from "preact/hooks";
import { ApiError, post } from "../../api";
import { Crumbs } from "../../components/Crumbs";
import { TopBar } from "../../components/TopBar";
import { useResource } from "../../hooks/useResource";
import { navigate, paths } from "../../router";
import type { CredentialOption, GenerationJob, Me, PrologRule } from "../../types";
import { fieldMessages } from "./logic";

const BACKENDS = ["openai", "transformers", "vllm", "random"];

/** Launch a generation job: the same checks as `manage.py generate_fallacies` (server side). */
export function LaunchGenerationPage({ me }: { me: Me }) {
  const rules = useResource<PrologRule[]>("/api/evaluation/prolog-rules/");
  const types = useMemo(() => [...new Set((rules.data ?? []).map((r) => r.type))].sort(), [rules.data]);
  const adminProjects = me.projects.filter((p) => p.role === "admin");
  const [project, setProject] = useState(adminProjects[0]?.name ?? "");
  const [type, setType] = useState("");
  const [method, setMethod] = useState("prolog");
  const [backend, setBackend] = useState("openai");
  const [model, setModel] = useState("");
  const [settings, setSettings] = useState("{}");
  const credentials = useResource<CredentialOption[]>("/api/evaluation/generation-credentials/");
  const [credential, setCredential] = useState("");
  const [n, setN] = useState("20");
  const [errors, setErrors] = useState<string[]>([]);
  const [busy, setBusy] = useState(false);

  const submit = async (e: Event) => {
    e.preventDefault();
    let parsed: unknown;
    try {
      parsed = JSON.parse(settings || "{}");
      if (backend === "openai" && credential && parsed && typeof parsed === "object" && !Array.isArray(parsed)) {
        parsed = { ...(parsed as Record<string, unknown>), credential };
      }
    } catch (err) {
      setErrors([`settings: not JSON (${(err as Error).message})`]);
      return;
    }
    setBusy(true);
    setErrors([]);
    try {
      const job = await post<GenerationJob>("/api/evaluation/generation-jobs/", {
        project,
        type: type || types[0] || "",
        method,
        backend,
        model,
        settings: parsed,
        n: Number(n),
      });
      navigate(paths.generationJob(job.id));
    } catch (err) {
      const messages = err instanceof ApiError ? fieldMessages(err.data) : [];
      setErrors(messages.length ? messages : [String((err as Error).message ?? err)]);
    } finally {
      setBusy(false);
    }
  };

  const input = (set: (v: string) => void) => (e: Event) => set((e.target as HTMLInputElement).value);
  return (
    <>
      <TopBar me={me}>
        <Crumbs items={[{ label: "Generation", href: paths.generation() }, { label: "Generate items" }]} />
      </TopBar>
      <main class="page narrow" data-testid="generation-launch-page">
        <h1>Generate items</h1>
        <p class="muted">
          Prolog: the model proposes facts, swipl keeps the combinations the type's rule accepts, the model writes one sentence for each, the judge rates them 0–3 (three times). Direct: sentences from the definition and examples (the
          baseline).
        </p>
        <form onSubmit={submit} class="panel launch-section">
          <label class="field">
            <span>Item project (a new name creates it)</span>
            <input list="generation-projects" value={project} onInput={input(setProject)} data-testid="gen-project" required />
            <datalist id="generation-projects">
              {adminProjects.map((p) => (
                <option key={p.id} value={p.name} />
              ))}
            </datalist>
          </label>
          <label class="field">
            <span>Fallacy type</span>
            <select value={type || types[0] || ""} onChange={input(setType)} data-testid="gen-type">
              {types.map((t) => (
                <option key={t} value={t}>
                  {t}
                </option>
              ))}
            </select>
          </label>
          <label class="field">
            <span>Method</span>
            <select value={method} onChange={input(setMethod)} data-testid="gen-method">
              <option value="prolog">prolog (checked by swipl)</option>
              <option value="direct">direct (baseline)</option>
            </select>
          </label>
          <label class="field">
            <span>Backend</span>
            <input list="generation-backends" value={backend} onInput={input(setBackend)} data-testid="gen-backend" />
            <datalist id="generation-backends">
              {BACKENDS.map((b) => (
                <option key={b} value={b} />
              ))}
            </datalist>
          </label>
          <label class="field">
            <span>Model</span>
            <input value={model} onInput={input(setModel)} data-testid="gen-model" />
          </label>
          {backend === "openai" && (
            <label class="field">
              <span>Credential (the operator's, by name)</span>
              <select value={credential} onChange={input(setCredential)} data-testid="gen-credential">
                <option value="">none (a server on this machine)</option>
                {(credentials.data ?? []).map((c) => (
                  <option key={c.name} value={c.name}>
                    {c.name} ({c.base_urls.join(", ")})
                  </option>
                ))}
              </select>
            </label>
          )}
          <label class="field">
            <span>Backend settings (JSON, no key)</span>
            <textarea rows={3} value={settings} onInput={input(setSettings)} data-testid="gen-settings" />
          </label>
          <label class="field">
            <span>Facts (or sentences) asked for</span>
            <input type="number" min={1} max={200} value={n} onInput={input(setN)} data-testid="gen-n" />
          </label>
          {errors.length > 0 && (
            <ul class="form-error" role="alert" data-testid="gen-errors">
              {errors.map((m) => (
                <li key={m}>{m}</li>
              ))}
            </ul>
          )}
          <div class="form-actions">
            <button class="btn primary" type="submit" disabled={busy} data-testid="gen-submit">
              {busy ? "Launching…" : "Launch"}
            </button>
          </div>
        </form>
      </main>
    </>
  );
}
