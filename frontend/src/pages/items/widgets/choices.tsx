// The widgets that answer with one choice or a text: multiple choice, classification,
// detection, free text, a scale (Likert) and a rubric (criteria, examples, then a scale).

import { criteriaLines, scale } from "../logic";
import { id, type WidgetProps } from "./common";

export function MultipleChoice({ field, value, readOnly, doc, onChange }: WidgetProps) {
  return (
    <div role="radiogroup" aria-labelledby={id(field, "title")} class="item-options">
      {Object.entries(doc.options).map(([key, text]) => (
        <label class="item-option" key={key}>
          <input
            type="radio"
            name={id(field, "mc")}
            value={key}
            checked={value === key}
            disabled={readOnly}
            data-testid={`option-${field.name}-${key}`}
            onChange={() => onChange(key)}
          />
          <strong>{key}</strong> <span>{text}</span>
        </label>
      ))}
      {!Object.keys(doc.options).length && <p class="muted small">This item has no options.</p>}
    </div>
  );
}

export function Classification({ field, value, readOnly, onChange }: WidgetProps) {
  return (
    <div role="radiogroup" aria-labelledby={id(field, "title")} class="item-options">
      {field.labels.map((label) => (
        <label class="item-option" key={label.name} title={label.definition || undefined}>
          <input
            type="radio"
            name={id(field, "cls")}
            value={label.name}
            checked={value === label.name}
            disabled={readOnly}
            data-testid={`label-${field.name}-${label.name}`}
            onChange={() => onChange(label.name)}
          />
          <span>{label.name}</span>
          {label.definition && <span class="muted small item-def">{label.definition}</span>}
        </label>
      ))}
    </div>
  );
}

export function Detection({ field, value, readOnly, onChange }: WidgetProps) {
  const choices: [boolean, string][] = [
    [true, "Fallacious"],
    [false, "Sound"],
  ];
  return (
    <div role="radiogroup" aria-labelledby={id(field, "title")} class="item-options inline">
      {choices.map(([v, text]) => (
        <label class="item-option" key={text}>
          <input
            type="radio"
            name={id(field, "det")}
            checked={value === v}
            disabled={readOnly}
            data-testid={`detection-${field.name}-${v ? "fallacious" : "sound"}`}
            onChange={() => onChange(v)}
          />
          <span>{text}</span>
        </label>
      ))}
    </div>
  );
}

export function FreeText({ field, value, readOnly, onChange }: WidgetProps) {
  return (
    <textarea
      id={id(field, "input")}
      aria-labelledby={id(field, "title")}
      rows={4}
      class="item-textarea"
      value={typeof value === "string" ? value : ""}
      disabled={readOnly}
      data-testid={`text-${field.name}`}
      onInput={(e) => {
        const text = (e.target as HTMLTextAreaElement).value;
        onChange(text === "" ? null : text, 800);
      }}
    />
  );
}

export function Scale({ field, value, readOnly, onChange }: WidgetProps) {
  const anchors = field.anchors ?? {};
  return (
    <div role="radiogroup" aria-labelledby={id(field, "title")} class="item-scale">
      {scale(field).map((v) => (
        <label class="item-scale-point" key={v}>
          <input
            type="radio"
            name={id(field, "scale")}
            checked={value === v}
            disabled={readOnly}
            aria-label={anchors[String(v)] ? `${v}: ${anchors[String(v)]}` : String(v)}
            data-testid={`scale-${field.name}-${v}`}
            onChange={() => onChange(v)}
          />
          <span class="item-scale-value">{v}</span>
          {anchors[String(v)] && <span class="muted small">{anchors[String(v)]}</span>}
        </label>
      ))}
    </div>
  );
}

export function Rubric(props: WidgetProps) {
  const { field } = props;
  const criteria = criteriaLines(field.criteria);
  return (
    <div class="item-rubric">
      {criteria.length > 0 && (
        <div class="item-criteria">
          <strong class="small">Criteria</strong>
          <ul>
            {criteria.map((c) => (
              <li key={c} class="small">
                {c}
              </li>
            ))}
          </ul>
        </div>
      )}
      {field.examples && field.examples.length > 0 && (
        <details class="item-examples">
          <summary class="small">Worked examples ({field.examples.length})</summary>
          <ul>
            {field.examples.map((ex, i) => (
              <li key={i} class="small">
                <strong>Score {ex.score}</strong>: {ex.text}
                {ex.why && <span class="muted"> — {ex.why}</span>}
              </li>
            ))}
          </ul>
        </details>
      )}
      <Scale {...props} />
    </div>
  );
}
