// The kind of a new project: span annotation, or items answered through a form (a preset
// form — FLUB, SmartyPat, ArgBench — or one written as JSON).

import { Select, TextArea } from "../../../components/form";
import { useResource } from "../../../hooks/useResource";
import type { FormPreset, TaxonomyList } from "../../../types";
import type { KindChoice } from "../shared/itemForm";

const CUSTOM = "";

export function KindPicker({ value, onValue, messages }: { value: KindChoice; onValue: (patch: Partial<KindChoice>) => void; messages: { form: string[]; kind: string[] } }) {
  const list = useResource<TaxonomyList>("/api/taxonomies/");
  const presets: FormPreset[] = list.data?.form_presets ?? [];
  const chosen = presets.find((p) => p.name === value.preset);
  return (
    <fieldset class="panel admin-section" data-testid="kind-picker">
      <legend>Kind</legend>
      <div class="field-row" role="radiogroup" aria-label="Project kind">
        <label class="radio-option">
          <input type="radio" name="project-kind" value="spans" checked={value.kind === "spans"} onChange={() => onValue({ kind: "spans" })} data-testid="kind-spans" /> Texts (span annotation)
        </label>
        <label class="radio-option">
          <input type="radio" name="project-kind" value="items" checked={value.kind === "items"} onChange={() => onValue({ kind: "items" })} data-testid="kind-items" /> Items (form)
        </label>
      </div>
      {messages.kind.length > 0 && (
        <p class="form-error" role="alert">
          {messages.kind.join(" ")}
        </p>
      )}
      {value.kind === "items" && (
        <>
          <Select
            id="project-form-preset"
            label="Form"
            path="form_preset"
            value={value.preset}
            onValue={(preset) => onValue({ preset })}
            options={[...presets.map((p) => ({ value: p.name, label: p.title })), { value: CUSTOM, label: "Custom form (JSON)" }]}
            hint={chosen ? `Questions: ${chosen.form.fields.map((f) => f.title || f.name).join("; ")}. Without a chosen taxonomy, the ${chosen.taxonomy} preset is used.` : "Each item is answered through this form."}
            testId="form-preset"
          />
          {value.preset === CUSTOM && (
            <TextArea
              id="project-form-json"
              label="Form (JSON)"
              path="form"
              value={value.formJson}
              onValue={(formJson) => onValue({ formJson })}
              messages={messages.form}
              rows={8}
              hint='{"fields": [{"name": "answer", "kind": "multiple-choice"}, ...], "aggregate": "macro"}'
              testId="form-json"
            />
          )}
          {value.preset !== CUSTOM && messages.form.length > 0 && (
            <p class="form-error" role="alert">
              {messages.form.join(" ")}
            </p>
          )}
        </>
      )}
    </fieldset>
  );
}
