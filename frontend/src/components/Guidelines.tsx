import { useMemo } from "preact/hooks";
import { categoryColor } from "../lib/colors";
import type { LabelOption } from "../lib/labels";
import { renderMarkdown } from "../lib/markdown";
import { TemplateView } from "./SpanEditor";

/** A label's definition, template (unless the project turned templates off) and example. */
export function LabelHelp({ option, showTemplate = true }: { option: LabelOption; showTemplate?: boolean }) {
  return (
    <div class="label-help" style={{ "--c": categoryColor(option.categoryIndex) }}>
      <div class="label-help-head">
        <span class="swatch" aria-hidden="true" />
        <strong>{option.name}</strong>
        <span class="muted small">{option.category}</span>
      </div>
      {option.definition && <p>{option.definition}</p>}
      {showTemplate && option.template && (
        <>
          <h4>Template</h4>
          <TemplateView option={option} />
        </>
      )}
      {option.example && (
        <>
          <h4>Example</h4>
          <p class="example">{option.example}</p>
        </>
      )}
      {option.aliases.length > 0 && <p class="muted small">Also called: {option.aliases.join(", ")}</p>}
    </div>
  );
}

export function GuidelinesPanel({
  guidelines,
  focus,
  showTemplates = true,
  onClose,
}: {
  guidelines: string;
  focus: LabelOption | null;
  /** False when the project turned justification templates off. */
  showTemplates?: boolean;
  onClose(): void;
}) {
  const html = useMemo(() => renderMarkdown(guidelines), [guidelines]);
  return (
    <aside class="guidelines" aria-labelledby="guidelines-title">
      <div class="panel-head">
        <h2 id="guidelines-title">Guidelines</h2>
        <button type="button" class="btn ghost small" onClick={onClose}>
          Hide <kbd>G</kbd>
        </button>
      </div>
      {focus && (
        <section aria-label="Label in focus">
          <h3 class="eyebrow">Label in focus</h3>
          <LabelHelp option={focus} showTemplate={showTemplates} />
        </section>
      )}
      <section class="markdown" aria-label="Project guidelines">
        {guidelines.trim() ? (
          <div dangerouslySetInnerHTML={{ __html: html }} />
        ) : (
          <p class="muted">This project has no written guidelines.</p>
        )}
      </section>
    </aside>
  );
}
