import { useState } from "preact/hooks";
import { FieldError } from "../../components/FieldErrors";
import { type FormErrors, messagesFor } from "../../lib/formErrors";
import { errorId } from "../../lib/ids";
import { type LaunchPlan, variantPath } from "../../lib/launch";
import type { Variant } from "../../types";
import { VariantEditor } from "./VariantEditor";

interface Props {
  /** The project the copies are saved in (its own variants; built-ins stay as they are). */
  projectId: number;
  variants: Variant[];
  checked: number[];
  onChecked: (ids: number[]) => void;
  /** A new version was saved: add it to the list and tick it. */
  onCreated: (v: Variant) => void;
  canEdit: boolean;
  errors: FormErrors;
  plan: LaunchPlan | null;
}

function VariantDetails({ v }: { v: Variant }) {
  return (
    <div class="variant-view" data-testid="variant-template">
      {v.description && <p class="small">{v.description}</p>}
      <dl class="meta-list small">
        <dt>Kind</dt>
        <dd>{v.kind}</dd>
        <dt>Parser</dt>
        <dd>{v.parser}</dd>
        <dt>Shots</dt>
        <dd>
          {v.shots} (seed {v.seed})
        </dd>
        {v.task !== "mafalda" && v.unparseable && (
          <>
            <dt>Unparseable</dt>
            <dd>{v.unparseable === "random" ? "a seeded random valid answer" : "counts as wrong"}</dd>
          </>
        )}
        {v.decoding && Object.keys(v.decoding).length > 0 && (
          <>
            <dt>Decoding</dt>
            <dd class="mono-cell">{JSON.stringify(v.decoding)}</dd>
          </>
        )}
      </dl>
      <pre class="code" aria-label={`Template of ${v.name} v${v.version}`}>
        {v.template}
      </pre>
    </div>
  );
}

export function VariantPicker({ projectId, variants, checked, onChecked, onCreated, canEdit, errors, plan }: Props) {
  const [viewing, setViewing] = useState<Set<number>>(new Set());
  const [editing, setEditing] = useState<number | null>(null);
  const kinds = [...new Set(variants.map((v) => v.kind))];
  const parsers = [...new Set(variants.map((v) => v.parser))];
  const nextVersion = (name: string) => Math.max(0, ...variants.filter((v) => v.name === name).map((v) => v.version)) + 1;
  const toggleView = (id: number) =>
    setViewing((s) => {
      const n = new Set(s);
      if (n.has(id)) n.delete(id);
      else n.add(id);
      return n;
    });

  return (
    <fieldset class="panel launch-section" data-testid="variant-picker">
      <legend>Prompt variants</legend>
      <FieldError messages={messagesFor(errors, "prompt_variants")} id={errorId("prompt_variants")} path="prompt_variants" />
      {variants.length === 0 && <p class="muted">No prompt variants are defined for this task.</p>}
      <ul class="choice-list">
        {variants.map((v) => {
          const path = variantPath(plan, v.id);
          const msgs = path ? messagesFor(errors, path, true) : [];
          const open = viewing.has(v.id);
          return (
            <li key={v.id} class={`choice${msgs.length ? " has-error" : ""}`} data-testid="variant-option" data-variant-id={v.id} data-name={v.name} data-version={v.version}>
              <div class="choice-line">
                <label class="check">
                  <input
                    type="checkbox"
                    checked={checked.includes(v.id)}
                    onChange={(e) => onChecked((e.target as HTMLInputElement).checked ? [...checked.filter((x) => x !== v.id), v.id] : checked.filter((x) => x !== v.id))}
                    aria-describedby={msgs.length && path ? errorId(path) : undefined}
                  />
                  <span class="choice-name">
                    {v.name} v{v.version}
                  </span>
                  <span class="badge subtle">{v.kind}</span>
                  {v.builtin ? <span class="muted small">built-in</span> : v.project == null ? <span class="muted small">global</span> : null}
                </label>
                <span class="choice-actions">
                  <button type="button" class={`btn small ghost${open ? " on" : ""}`} aria-expanded={open} onClick={() => toggleView(v.id)} data-testid="variant-view">
                    {open ? "Hide" : "View"}
                  </button>
                  {canEdit && (
                    <button
                      type="button"
                      class={`btn small ghost${editing === v.id ? " on" : ""}`}
                      aria-expanded={editing === v.id}
                      onClick={() => setEditing(editing === v.id ? null : v.id)}
                      data-testid="variant-copy"
                    >
                      Copy and edit
                    </button>
                  )}
                </span>
              </div>
              {path && <FieldError messages={msgs} id={errorId(path)} path={path} />}
              {open && <VariantDetails v={v} />}
              {editing === v.id && (
                <VariantEditor
                  projectId={projectId}
                  base={v}
                  kinds={kinds}
                  parsers={parsers}
                  nextVersion={nextVersion(v.name)}
                  onCancel={() => setEditing(null)}
                  onCreated={(nv) => {
                    setEditing(null);
                    onCreated(nv);
                  }}
                />
              )}
            </li>
          );
        })}
      </ul>
    </fieldset>
  );
}
