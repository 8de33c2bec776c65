import { useMemo, useState } from "preact/hooks";
import { ApiError, post } from "../../api";
import { Crumbs } from "../../components/Crumbs";
import { lazyComponent } from "../../components/Lazy";
import { LoadErrorMessage } from "../../components/PageMessage";
import { TopBar } from "../../components/TopBar";
import { useResource } from "../../hooks/useResource";
import { paths } from "../../router";
import type { Me, PrologRule } from "../../types";
import { fieldMessages, refusalLine } from "./logic";

const GLOBAL = "global";

// CodeMirror is a chunk of its own, loaded when an edit starts.
const RuleEditor = lazyComponent(() => import("./RuleEditor").then((m) => m.RuleEditor));

/**
 * The Prolog rule files of a project (its own versions and the shipped, global ones): view
 * one, copy it into the editor, save the edit as the project's next version of the type (other
 * projects never see it; superusers may pick "Global" to version the shipped files). swipl
 * checks it on the server: a refusal shows swipl's message and the line it names.
 */
export function RulesPage({ me }: { me: Me }) {
  const staff = me.projects.filter((p) => p.role === "admin" || p.role === "reviewer");
  const first = staff.find((p) => p.role === "admin") ?? staff[0];
  const [scope, setScope] = useState<string>(first ? String(first.id) : GLOBAL);
  const rules = useResource<PrologRule[]>(`/api/evaluation/prolog-rules/${scope === GLOBAL ? "" : `?project=${scope}`}`);
  const shown = useMemo(() => (scope === GLOBAL ? (rules.data ?? []).filter((r) => r.project == null) : (rules.data ?? [])), [rules.data, scope]);
  const [selected, setSelected] = useState<number | null>(null);
  const [draft, setDraft] = useState<string | null>(null);
  // The text the editor started from (the draft is the editor's from then on).
  const [initial, setInitial] = useState("");
  const [errors, setErrors] = useState<string[]>([]);
  // The refused line as the editor marks it, and what was edited since the refusal.
  const [refused, setRefused] = useState<{ line: number } | null>(null);
  const [edited, setEdited] = useState<"nothing" | "elsewhere" | "line">("nothing");
  const [saved, setSaved] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const canEdit = !!me.is_superuser || staff.some((p) => String(p.id) === scope && p.role === "admin");

  const byType = useMemo(() => {
    const map = new Map<string, PrologRule[]>();
    for (const r of shown) map.set(r.type, [...(map.get(r.type) ?? []), r]);
    return [...map.entries()].sort(([a], [b]) => a.localeCompare(b));
  }, [shown]);
  const rule = shown.find((r) => r.id === selected) ?? null;
  const line = refused?.line ?? null;

  const showErrors = (messages: string[]) => {
    setErrors(messages);
    const n = messages.map(refusalLine).find((l) => l != null) ?? null;
    setRefused(n != null && n > 0 ? { line: n } : null);
    setEdited("nothing");
  };
  const edit = (text: string) => {
    setDraft(text);
    if (errors.length) setEdited((e) => (e === "nothing" ? "elsewhere" : e));
  };

  const open = (id: number) => {
    setSelected(id);
    setDraft(null);
    showErrors([]);
    setSaved(null);
  };

  const save = async () => {
    if (!rule || draft == null) return;
    setBusy(true);
    setSaved(null);
    try {
      const project = scope === GLOBAL ? null : Number(scope);
      const created = await post<PrologRule>("/api/evaluation/prolog-rules/", { type: rule.type, source: draft, project });
      await rules.reload();
      setSelected(created.id);
      setDraft(null);
      showErrors([]);
      setSaved(`Saved as ${created.type} v${created.version}.`);
    } catch (e) {
      const messages = e instanceof ApiError ? fieldMessages(e.data) : [];
      showErrors(messages.length ? messages : [String((e as Error).message ?? e)]);
    } finally {
      setBusy(false);
    }
  };

  return (
    <>
      <TopBar me={me}>
        <Crumbs items={[{ label: "Generation", href: paths.generation() }, { label: "Rule files" }]} />
      </TopBar>
      <main class="page wide" data-testid="rules-page">
        <h1>Prolog rule files</h1>
        <label class="field rules-scope">
          <span>Project</span>
          <select
            value={scope}
            onChange={(e) => {
              setScope((e.target as HTMLSelectElement).value);
              open(-1);
            }}
            data-testid="rules-project"
          >
            {staff.map((p) => (
              <option key={p.id} value={String(p.id)}>
                {p.name}
              </option>
            ))}
            {me.is_superuser && <option value={GLOBAL}>Global (shipped files)</option>}
          </select>
        </label>
        {rules.error && !rules.data && <LoadErrorMessage error={rules.error} onRetry={() => void rules.reload()} />}
        <div class="rules-layout">
          <nav class="panel rule-files" aria-label="Rule files">
            <ul class="rule-types">
              {byType.map(([type, versions]) => (
                <li key={type}>
                  <strong>{type}</strong>
                  <ul class="rule-versions">
                    {versions.map((r) => (
                      <li key={r.id}>
                        <button class={`btn small ${r.id === selected ? "primary" : "ghost"}`} onClick={() => open(r.id)} data-testid="rule-version">
                          v{r.version}
                          {r.builtin ? " (shipped)" : r.created_by ? ` by ${r.created_by}` : ""}
                          {!r.builtin && r.project == null ? " (global)" : ""}
                        </button>
                      </li>
                    ))}
                  </ul>
                </li>
              ))}
            </ul>
          </nav>
          <section class="panel" data-testid="rule-view">
            {!rule && <p class="muted">Pick a version to view it.</p>}
            {rule && (
              <>
                <div class="panel-head">
                  <h2>
                    {rule.type} v{rule.version}
                  </h2>
                  {canEdit && draft == null && (
                    <button
                      class="btn"
                      onClick={() => {
                        setInitial(rule.source);
                        setDraft(rule.source);
                      }}
                      data-testid="rule-copy"
                    >
                      Copy and edit
                    </button>
                  )}
                </div>
                {saved && (
                  <p class="muted" role="status" data-testid="rule-saved">
                    {saved}
                  </p>
                )}
                {draft == null ? (
                  <pre class="rule-source" data-testid="rule-source">
                    {rule.source}
                  </pre>
                ) : (
                  <>
                    <RuleEditor key={rule.id} initial={initial} onChange={edit} refused={refused} onRefusedCleared={() => setEdited("line")} label="Rule file" />
                    {errors.length > 0 && (
                      <div class="form-error" role="alert" data-testid="rule-errors">
                        <p>swipl refused the file{edited !== "nothing" ? " (before your last edits)" : ""}:</p>
                        <ul>
                          {errors.map((m) => (
                            <li key={m}>{m}</li>
                          ))}
                        </ul>
                        {line != null && edited === "nothing" && (
                          <p data-testid="rule-error-line">
                            Line {line} (marked in the editor): <code>{draft.split("\n")[line - 1] ?? ""}</code>
                          </p>
                        )}
                        {line != null && edited === "line" && <p data-testid="rule-error-edited">You changed line {line} since: save to have swipl check it again.</p>}
                      </div>
                    )}
                    <div class="form-actions">
                      <button class="btn primary" disabled={busy} onClick={() => void save()} data-testid="rule-save">
                        {busy ? "Checking with swipl…" : `Save as ${rule.type} v${Math.max(...shown.filter((r) => r.type === rule.type).map((r) => r.version)) + 1}`}
                      </button>
                      <button
                        class="btn ghost"
                        onClick={() => {
                          setDraft(null);
                          showErrors([]);
                        }}
                      >
                        Cancel
                      </button>
                    </div>
                  </>
                )}
              </>
            )}
          </section>
        </div>
      </main>
    </>
  );
}
