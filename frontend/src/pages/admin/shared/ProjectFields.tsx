// The body the create and settings forms share: the error summary (focused when errors
// arrive), name, description, annotators per document, taxonomy and guidelines.

import { useEffect, useRef } from "preact/hooks";
import { ErrorSummary } from "../../../components/FieldErrors";
import { MarkdownEditor, NumberField, Select, TextArea, TextField } from "../../../components/form";
import { type FormErrors, hasErrors, messagesFor, onlyCleared } from "../../../lib/formErrors";
import { TaxonomyPicker } from "../new/TaxonomyPicker";
import type { ProjectForm } from "./projectForm";

export const FIELD_NAMES: Record<string, string> = {
  name: "Name",
  description: "Description",
  guidelines: "Guidelines",
  taxonomy: "Taxonomy",
  annotators_per_document: "Annotators per document",
  justification_templates: "Justification templates",
  archived: "Archived",
};
const TEMPLATE_OPTIONS = [
  { value: "required", label: "Required: refuse to submit spans with empty slots" },
  { value: "optional", label: "Optional: warn about spans with empty slots" },
  { value: "off", label: "Off: no templates on the annotation page" },
];

export const describeField = (p: string) => FIELD_NAMES[p] ?? p;

export function ProjectFields({
  form,
  update,
  errors,
  summaryTitle,
  summaryTestId,
  showTemplates = false,
}: {
  form: ProjectForm;
  update: (patch: Partial<ProjectForm>) => void;
  errors: FormErrors;
  /** The error summary's heading and test id. */
  summaryTitle: string;
  summaryTestId: string;
  /** Span projects: the justification templates setting. */
  showTemplates?: boolean;
}) {
  const summaryRef = useRef<HTMLDivElement>(null);
  const shown = useRef(errors);
  useEffect(() => {
    // A refusal moves the focus to its summary; a message going as its field is edited does not.
    if (hasErrors(errors) && !onlyCleared(shown.current, errors)) summaryRef.current?.focus();
    shown.current = errors;
  }, [errors]);

  return (
    <>
      <div tabIndex={-1} ref={summaryRef} class="summary-anchor">
        <ErrorSummary errors={errors} describe={describeField} title={summaryTitle} testId={summaryTestId} />
      </div>
      <fieldset class="panel admin-section">
        <legend>Project</legend>
        <div class="field-row">
          <TextField id="project-name" label="Name" path="name" class="grow" value={form.name} onValue={(name) => update({ name })} messages={messagesFor(errors, "name")} required testId="project-name" />
          <NumberField
            id="project-per-document"
            label="Annotators per document"
            path="annotators_per_document"
            value={form.perDocument}
            onValue={(perDocument) => update({ perDocument })}
            messages={messagesFor(errors, "annotators_per_document")}
            min={1}
            hint="A document is done when this many submitted it."
            class="per-doc-input"
            testId="project-per-document"
          />
        </div>
        <TextArea id="project-description" label="Description" path="description" value={form.description} onValue={(description) => update({ description })} messages={messagesFor(errors, "description")} rows={2} testId="project-description" />
      </fieldset>
      {showTemplates && (
        <fieldset class="panel admin-section">
          <legend>Justification templates</legend>
          <Select
            id="project-templates"
            label="When annotators submit a document"
            path="justification_templates"
            value={form.templates ?? "optional"}
            onValue={(v) => update({ templates: v as ProjectForm["templates"] })}
            options={TEMPLATE_OPTIONS}
            messages={messagesFor(errors, "justification_templates")}
            hint="Each label's template has slots (who claims what). Required: a span with an empty slot cannot be submitted. Optional: submitting lists such spans first. Off: no template is shown."
            testId="project-templates"
          />
        </fieldset>
      )}
      <TaxonomyPicker value={form.taxonomy} onValue={(taxonomy) => update({ taxonomy })} messages={messagesFor(errors, "taxonomy")} />
      <fieldset class="panel admin-section">
        <legend>Guidelines</legend>
        <MarkdownEditor
          id="project-guidelines"
          label="Guidelines (Markdown)"
          path="guidelines"
          value={form.guidelines}
          onValue={(guidelines) => update({ guidelines })}
          messages={messagesFor(errors, "guidelines")}
          hint="Annotators read these beside the text (press G on the annotation page). Headings, lists, **bold**, *italic*, `code` and links."
          testId="project-guidelines"
        />
      </fieldset>
    </>
  );
}
