// Choose the project's taxonomy: an installed one, a preset (installed on choosing), or an
// uploaded YAML/JSON file (every problem the loader finds is listed).

import { useState } from "preact/hooks";
import { FileDrop, Select, type Option, isOk, sendJson, sendMultipart } from "../../../components/form";
import { LoadErrorMessage } from "../../../components/PageMessage";
import { useResource } from "../../../hooks/useResource";
import { toFormErrors } from "../../../lib/formErrors";
import type { TaxonomyInfo, TaxonomyList } from "../../../types";

const PRESET = "preset:";

export function taxonomyOptions(list: TaxonomyList): Option[] {
  const installed = list.taxonomies.map((t) => ({ value: String(t.id), label: `${t.title || t.name} — ${t.name} v${t.version}, ${t.type_count} types` }));
  const presets = list.presets.filter((p) => p.installed_id == null).map((p) => ({ value: `${PRESET}${p.name}`, label: `${p.title || p.name} — preset, installed when chosen` }));
  return [...installed, ...presets];
}

export function TaxonomyPicker({ value, onValue, messages, disabled }: { value: string; onValue: (id: string) => void; messages: string[]; disabled?: boolean }) {
  const list = useResource<TaxonomyList>("/api/taxonomies/");
  const [file, setFile] = useState<File | null>(null);
  const [problems, setProblems] = useState<string[]>([]);
  const [busy, setBusy] = useState<string | null>(null);
  const [added, setAdded] = useState<TaxonomyInfo | null>(null);

  const installed = async (res: { status: number; data: unknown }) => {
    if (isOk(res)) {
      const t = res.data as TaxonomyInfo;
      await list.reload();
      setAdded(t);
      setProblems([]);
      onValue(String(t.id));
      return;
    }
    const errs = toFormErrors(res.data, res.status);
    setProblems([...errs.general, ...Object.entries(errs.fields).flatMap(([k, ms]) => (k === "file" || k === "preset" ? ms : ms.map((m) => `${k}: ${m}`)))]);
  };

  const choose = async (v: string) => {
    if (!v.startsWith(PRESET)) return onValue(v);
    setBusy("Installing the preset…");
    try {
      await installed(await sendJson("POST", "/api/taxonomies/", { preset: v.slice(PRESET.length) }));
    } catch {
      setProblems(["The server cannot be reached; nothing was installed."]);
    } finally {
      setBusy(null);
    }
  };

  const upload = async () => {
    if (!file) return;
    setBusy("Checking the file…");
    try {
      await installed(await sendMultipart("/api/taxonomies/", { file }));
    } catch {
      setProblems(["The server cannot be reached; nothing was installed."]);
    } finally {
      setBusy(null);
    }
  };

  if (list.error && !list.data) return <LoadErrorMessage error={list.error} onRetry={() => void list.reload()} />;
  return (
    <fieldset class="panel admin-section" data-testid="taxonomy-picker">
      <legend>Taxonomy</legend>
      <Select
        id="project-taxonomy"
        label="Taxonomy"
        path="taxonomy"
        value={value}
        onValue={(v) => void choose(v)}
        options={list.data ? taxonomyOptions(list.data) : []}
        placeholder={list.data ? "Choose a taxonomy…" : "Loading…"}
        messages={messages}
        disabled={disabled || !!busy}
        hint={disabled ? "The taxonomy cannot change once the project has spans or a gold standard." : "The labels annotators choose from."}
        testId="taxonomy-select"
      />
      {added && value === String(added.id) && (
        <p class="note" role="status" data-testid="taxonomy-added">
          Installed {added.title || added.name} v{added.version} ({added.type_count} types).
        </p>
      )}
      {!disabled && (
        <details class="taxonomy-upload" open={problems.length > 0 || !!file}>
          <summary>Upload a taxonomy file (YAML or JSON)</summary>
          <div class="upload-row">
            <FileDrop id="taxonomy-file" label="Taxonomy file" accept=".yaml,.yml,.json" file={file} onFile={setFile} path="taxonomy_file" testId="taxonomy-file" />
            <button type="button" class="btn" disabled={!file || !!busy} onClick={() => void upload()} data-testid="taxonomy-upload">
              Upload and use
            </button>
          </div>
        </details>
      )}
      {busy && (
        <p class="muted small" aria-live="polite">
          {busy}
        </p>
      )}
      {problems.length > 0 && (
        <div class="form-error error-summary" role="alert" data-testid="taxonomy-errors">
          <p>
            <strong>The taxonomy was not installed:</strong>
          </p>
          <ul>
            {problems.map((p, i) => (
              <li key={i}>{p}</li>
            ))}
          </ul>
        </div>
      )}
    </fieldset>
  );
}
