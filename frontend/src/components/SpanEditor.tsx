import { categoryColor } from "../lib/colors";
import type { LabelOption } from "../lib/labels";
import { fillTemplate, parseTemplate, slotOrder, type TemplateMode } from "../lib/template";
import { type Details, type LabelDetail, NO_FALLACY } from "../types";

export interface EditorSpan {
  key: string;
  first: number;
  last: number;
  labels: string[];
  details: Details;
  excerpt: string;
}

interface Props {
  span: EditorSpan;
  options: Map<string, LabelOption>;
  readOnly: boolean;
  canMove: boolean;
  /** The project's justification templates (off: none shown; required: slots required). */
  templates?: TemplateMode;
  onDetail(label: string, detail: LabelDetail): void;
  onToggleNoFallacy(): void;
  onEditLabels(): void;
  onMove(): void;
  onDelete(): void;
  onClose(): void;
  onFocusLabel(label: LabelOption | null): void;
  /** Snapshot before a field is edited, for undo (committed on blur). */
  onEditStart(): void;
  onEditEnd(): void;
}

function emptyDetail(): LabelDetail {
  return { slots: {}, explanation: "" };
}

export function TemplateView({ option, values }: { option: LabelOption; values?: Record<string, string> }) {
  const pieces = parseTemplate(option.template, option.slots);
  if (!pieces.length) return <p class="muted small">This label has no justification template.</p>;
  return (
    <p class="template">
      {pieces.map((piece, i) =>
        piece.kind === "text" ? (
          <span key={i}>{piece.text}</span>
        ) : (
          <span key={i} class={`slot${values?.[piece.slot]?.trim() ? " filled" : ""}`} title={`Slot ${piece.slot}`}>
            {values?.[piece.slot]?.trim() || piece.slot}
          </span>
        ),
      )}
    </p>
  );
}

export function SpanEditor(p: Props) {
  const { span } = p;
  const real = span.labels.filter((l) => l !== NO_FALLACY);
  const optional = span.labels.includes(NO_FALLACY);
  const templates = p.templates ?? "optional";
  const rangeText = span.first === span.last ? `Sentence ${span.first + 1}` : `Sentences ${span.first + 1}–${span.last + 1}`;

  return (
    <section class="panel editor" aria-labelledby="editor-title">
      <div class="panel-head">
        <h2 id="editor-title">
          Span · {rangeText}
          {real.length > 1 && <span class="muted small"> · {real.length} alternatives</span>}
        </h2>
        <button type="button" class="btn ghost small" onClick={p.onClose} aria-label="Close span editor">
          Close <kbd>Esc</kbd>
        </button>
      </div>
      <blockquote class="excerpt">{span.excerpt}</blockquote>
      {!p.readOnly && (
        <div class="editor-actions">
          <button type="button" class="btn small" onClick={p.onEditLabels}>
            Edit labels <kbd>L</kbd>
          </button>
          <button type="button" class="btn small" onClick={p.onMove} disabled={!p.canMove} title="Select other sentences first">
            Move to selection <kbd>M</kbd>
          </button>
          <button type="button" class="btn small danger" onClick={p.onDelete}>
            Delete span <kbd>Del</kbd>
          </button>
        </div>
      )}
      <label class="check">
        <input type="checkbox" checked={optional} disabled={p.readOnly} onChange={p.onToggleNoFallacy} />
        <span>“No fallacy” is also acceptable for this span</span>
      </label>
      {real.map((label, n) => {
        const option = p.options.get(label);
        const detail = span.details[label] ?? emptyDetail();
        const slots = templates === "off" ? [] : option ? slotOrder(option.template, option.slots) : Object.keys(detail.slots);
        const idBase = `f-${span.key}-${n}`;
        return (
          <div class="label-card" key={label} style={{ "--c": categoryColor(option?.categoryIndex) }}>
            <div class="label-card-head">
              <span class="swatch" aria-hidden="true" />
              <h3>
                {n > 0 && <span class="or">or </span>}
                {label}
              </h3>
              <button type="button" class="link small" onClick={() => p.onFocusLabel(option ?? null)}>
                Definition
              </button>
            </div>
            {option && templates !== "off" && <TemplateView option={option} values={detail.slots} />}
            {slots.length > 0 && (
              <div class="slots">
                {slots.map((slot) => (
                  <label class={`slot-field${templates === "required" && !detail.slots[slot]?.trim() ? " missing" : ""}`} key={slot}>
                    <span class="slot-name">{slot}</span>
                    <input
                      aria-required={templates === "required"}
                      id={`${idBase}-${slot}`}
                      data-slot={slot}
                      data-label={label}
                      value={detail.slots[slot] ?? ""}
                      readOnly={p.readOnly}
                      placeholder={`Who/what is ${slot}?`}
                      onFocus={() => {
                        p.onEditStart();
                        p.onFocusLabel(option ?? null);
                      }}
                      onBlur={p.onEditEnd}
                      onInput={(e) =>
                        p.onDetail(label, { ...detail, slots: { ...detail.slots, [slot]: e.currentTarget.value } })
                      }
                    />
                  </label>
                ))}
              </div>
            )}
            {option && templates !== "off" && slots.some((s) => detail.slots[s]?.trim()) && (
              <p class="filled-preview small">
                <span class="muted">Reads: </span>
                {fillTemplate(option.template, option.slots, detail.slots)}
              </p>
            )}
            <label class="field">
              <span>Explanation</span>
              <textarea
                data-explanation={label}
                rows={3}
                value={detail.explanation}
                readOnly={p.readOnly}
                placeholder="Why is this an instance of the fallacy?"
                onFocus={() => {
                  p.onEditStart();
                  p.onFocusLabel(option ?? null);
                }}
                onBlur={p.onEditEnd}
                onInput={(e) => p.onDetail(label, { ...detail, explanation: e.currentTarget.value })}
              />
            </label>
          </div>
        );
      })}
    </section>
  );
}
