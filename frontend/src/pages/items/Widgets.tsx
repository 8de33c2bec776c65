// One widget per form field kind (annotations/items.py). Each gets the field, its current
// value (undefined: unanswered), whether it is read-only, and `onChange(value, delayMs)`
// (null clears; a delay lets typing coalesce before autosave).

import { useRef, useState } from "preact/hooks";
import { offsetsOf } from "../../lib/offsets";
import type { ItemAnswer, ItemField, ItemState, Segment } from "../../types";
import {
  addSegment,
  criteriaLines,
  fieldTitle,
  pieces,
  rankAdd,
  rankMove,
  rankRemove,
  removeSegment,
  scale,
  segmentFromSelection,
} from "./logic";

export interface WidgetProps {
  field: ItemField;
  value: ItemAnswer | undefined;
  readOnly: boolean;
  doc: ItemState["document"];
  onChange(value: ItemAnswer | null, delayMs?: number): void;
}

const id = (field: ItemField, part: string) => `f-${field.name}-${part}`;

function MultipleChoice({ field, value, readOnly, doc, onChange }: WidgetProps) {
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

function Classification({ field, value, readOnly, onChange }: WidgetProps) {
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

function Ranked({ field, value, readOnly, onChange }: WidgetProps) {
  const ranking = Array.isArray(value) ? (value as string[]) : null;
  const max = field.max ?? 3;
  const [pick, setPick] = useState("");
  const list = ranking ?? [];
  const free = field.labels.filter((l) => !list.includes(l.name));
  const full = list.length >= max;
  const definition = field.labels.find((l) => l.name === pick)?.definition;
  return (
    <div class="item-ranked">
      {ranking === null ? (
        <p class="muted small" data-testid={`ranked-${field.name}-unanswered`}>
          Not answered yet.
        </p>
      ) : list.length === 0 ? (
        <p data-testid={`ranked-${field.name}-none`}>
          <strong>No fallacy</strong>
        </p>
      ) : (
        <ol class="item-rank-list" data-testid={`ranked-${field.name}-list`}>
          {list.map((label, i) => (
            <li key={label}>
              <span class="item-rank-label">{label}</span>
              {!readOnly && (
                <span class="item-rank-actions">
                  <button type="button" class="btn small ghost" aria-label={`Move ${label} up`} disabled={i === 0} onClick={() => onChange(rankMove(list, i, -1))}>
                    ↑
                  </button>
                  <button
                    type="button"
                    class="btn small ghost"
                    aria-label={`Move ${label} down`}
                    disabled={i === list.length - 1}
                    onClick={() => onChange(rankMove(list, i, 1))}
                  >
                    ↓
                  </button>
                  <button type="button" class="btn small ghost" aria-label={`Remove ${label}`} onClick={() => onChange(rankRemove(list, label))}>
                    ✕
                  </button>
                </span>
              )}
            </li>
          ))}
        </ol>
      )}
      {!readOnly && (
        <div class="item-row">
          <label class="sr-only" for={id(field, "pick")}>
            Label to rank for {fieldTitle(field)}
          </label>
          <select id={id(field, "pick")} value={pick} disabled={full} data-testid={`ranked-${field.name}-select`} onChange={(e) => setPick((e.target as HTMLSelectElement).value)}>
            <option value="">{full ? `At most ${max} labels` : "Choose a label…"}</option>
            {free.map((l) => (
              <option key={l.name} value={l.name}>
                {l.name}
              </option>
            ))}
          </select>
          <button
            type="button"
            class="btn small"
            disabled={!pick || full}
            data-testid={`ranked-${field.name}-add`}
            onClick={() => {
              onChange(rankAdd(list, pick, max));
              setPick("");
            }}
          >
            Add to ranking
          </button>
          <button type="button" class="btn small ghost" data-testid={`ranked-${field.name}-no-fallacy`} aria-pressed={ranking !== null && list.length === 0} onClick={() => onChange([])}>
            No fallacy
          </button>
        </div>
      )}
      {definition && <p class="muted small item-def">{definition}</p>}
      <p class="muted small">Best first, up to {max}.</p>
    </div>
  );
}

function Detection({ field, value, readOnly, onChange }: WidgetProps) {
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

/** Code-point offset of a DOM point inside `text` (pieces carry their code-point data-start;
 * a DOM offset inside a text node counts UTF-16 units). */
function offsetOf(root: HTMLElement, text: string, node: Node, offset: number): number | null {
  if (!root.contains(node)) return null;
  if (node === root) {
    const child = root.childNodes[offset] as HTMLElement | undefined;
    return child?.dataset?.start ? Number(child.dataset.start) : Number(root.dataset.length ?? 0);
  }
  const el = (node.nodeType === Node.TEXT_NODE ? node.parentElement : (node as HTMLElement))?.closest<HTMLElement>("[data-start]");
  if (!el || !root.contains(el)) return null;
  if (node.nodeType !== Node.TEXT_NODE) return Number(el.dataset.start);
  const o = offsetsOf(text);
  return o.toCodePoint(o.toUnit(Number(el.dataset.start)) + offset);
}

function Segmentation({ field, value, readOnly, doc, onChange }: WidgetProps) {
  const segments = Array.isArray(value) ? (value as Segment[]) : null;
  const list = segments ?? [];
  const textRef = useRef<HTMLDivElement>(null);
  const [selection, setSelection] = useState<[number, number] | null>(null);
  const [label, setLabel] = useState("");
  const readSelection = () => {
    const root = textRef.current;
    const sel = window.getSelection();
    if (!root || !sel || sel.rangeCount === 0 || sel.isCollapsed) return;
    const a = offsetOf(root, doc.text, sel.anchorNode!, sel.anchorOffset);
    const b = offsetOf(root, doc.text, sel.focusNode!, sel.focusOffset);
    if (a !== null && b !== null && a !== b) setSelection([Math.min(a, b), Math.max(a, b)]);
  };
  const chosen = selection ? segmentFromSelection(doc.text, selection[0], selection[1], label) : null;
  const chars = offsetsOf(doc.text); // segment offsets count code points, as the API does
  return (
    <div class="item-seg">
      <div
        ref={textRef}
        class="item-text item-seg-text"
        data-length={chars.length}
        data-testid={`segmentation-${field.name}-text`}
        aria-label={`Text to mark for ${fieldTitle(field)}: select a passage`}
        onMouseUp={readSelection}
        onKeyUp={readSelection}
      >
        {pieces(chars.length, list).map((p) => (
          <span key={p.start} data-start={p.start} class={p.labels.length ? "item-seg-mark" : undefined} title={p.labels.join(", ") || undefined}>
            {chars.slice(p.start, p.end)}
          </span>
        ))}
      </div>
      {!readOnly && (
        <div class="item-row">
          <span class="small" data-testid={`segmentation-${field.name}-selection`}>
            {selection ? `Selected: “${chars.slice(selection[0], selection[1]).trim()}”` : "Select a passage of the text above."}
          </span>
          <label class="sr-only" for={id(field, "label")}>
            Label for the selected passage
          </label>
          <select id={id(field, "label")} value={label} data-testid={`segmentation-${field.name}-label`} onChange={(e) => setLabel((e.target as HTMLSelectElement).value)}>
            <option value="">Choose a label…</option>
            {field.labels.map((l) => (
              <option key={l.name} value={l.name}>
                {l.name}
              </option>
            ))}
          </select>
          <button
            type="button"
            class="btn small"
            disabled={!chosen}
            data-testid={`segmentation-${field.name}-add`}
            onClick={() => {
              if (!chosen) return;
              onChange(addSegment(list, chosen));
              setSelection(null);
              window.getSelection()?.removeAllRanges();
            }}
          >
            Add segment
          </button>
          <button type="button" class="btn small ghost" data-testid={`segmentation-${field.name}-none`} aria-pressed={segments !== null && list.length === 0} onClick={() => onChange([])}>
            Nothing to mark
          </button>
        </div>
      )}
      {segments === null ? (
        <p class="muted small">Not answered yet.</p>
      ) : list.length === 0 ? (
        <p class="small" data-testid={`segmentation-${field.name}-empty`}>
          <strong>Nothing marked</strong>
        </p>
      ) : (
        <ul class="item-seg-list" data-testid={`segmentation-${field.name}-list`}>
          {list.map(([s, e, l], i) => (
            <li key={`${s}-${e}-${l}`}>
              <span>
                <strong>{l}</strong>: “{chars.slice(s, e)}”
              </span>
              {!readOnly && (
                <button type="button" class="btn small ghost" aria-label={`Remove ${l}: ${chars.slice(s, e)}`} onClick={() => onChange(removeSegment(list, i))}>
                  ✕
                </button>
              )}
            </li>
          ))}
        </ul>
      )}
    </div>
  );
}

function FreeText({ field, value, readOnly, onChange }: WidgetProps) {
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

function Scale({ field, value, readOnly, onChange }: WidgetProps) {
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

function Rubric(props: WidgetProps) {
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
