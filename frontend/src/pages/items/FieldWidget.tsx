// One widget per form field kind (annotations/items.py). Each gets the field, its current
// value (undefined: unanswered), whether it is read-only, and `onChange(value, delayMs)`
// (null clears; a delay lets typing coalesce before autosave).

import type { ItemAnswer, ItemField } from "../../types";
import { fieldTitle } from "./logic";
import { Classification, Detection, FreeText, MultipleChoice, Rubric, Scale } from "./widgets/choices";
import { id, type WidgetProps } from "./widgets/common";
import { Ranked } from "./widgets/Ranked";
import { Segmentation } from "./widgets/Segmentation";

const WIDGETS: Record<ItemField["kind"], (p: WidgetProps) => preact.JSX.Element> = {
  "multiple-choice": MultipleChoice,
  classification: Classification,
  ranked: Ranked,
  detection: Detection,
  segmentation: Segmentation,
  "free-text": FreeText,
  likert: Scale,
  rubric: Rubric,
};

/** A field: title, help, description, the widget, its error and (staff) the gold answer. */
export function FieldWidget(props: WidgetProps & { error?: string; gold?: ItemAnswer; required: boolean }) {
  const { field, error, gold, required } = props;
  const Widget = WIDGETS[field.kind];
  return (
    <section class="panel item-field" data-testid={`field-${field.name}`} data-kind={field.kind} aria-labelledby={id(field, "title")}>
      <div class="panel-head">
        <h2 id={id(field, "title")}>
          {fieldTitle(field)}
          {!required && <span class="muted small"> (optional)</span>}
        </h2>
        <span class="tag">{field.kind}</span>
      </div>
      {field.help && <p class="muted small">{field.help}</p>}
      {field.description && <p class="small">{field.description}</p>}
      {Widget ? <Widget {...props} /> : <p class="muted">Unknown field kind {field.kind}.</p>}
      {error && (
        <p class="field-error" role="alert" data-testid={`error-${field.name}`}>
          {error}
        </p>
      )}
      {gold !== undefined && (
        <p class="small item-gold" data-testid={`gold-${field.name}`}>
          Gold: <code>{JSON.stringify(gold)}</code>
        </p>
      )}
    </section>
  );
}
