// A segmentation field: passages of the text selected with the mouse, each with a label.

import { useRef, useState } from "preact/hooks";
import { offsetsOf } from "../../../lib/offsets";
import type { Segment } from "../../../types";
import { addSegment, fieldTitle, pieces, removeSegment, segmentFromSelection } from "../logic";
import { id, type WidgetProps } from "./common";

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

export function Segmentation({ field, value, readOnly, doc, onChange }: WidgetProps) {
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
