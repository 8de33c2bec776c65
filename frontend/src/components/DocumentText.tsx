import type { Ref } from "preact";
import { useEffect, useMemo, useRef } from "preact/hooks";
import type { LaneLayout } from "../lib/layout";
import { offsetsOf } from "../lib/offsets";
import { contains, type Drag, dragOver, dragSelection, range, type Selection, startDrag } from "../lib/selection";
import type { Sentence } from "../types";

export interface ShownSpan {
  key: string;
  first: number;
  last: number;
  color: string;
  optional: boolean; // "no fallacy" is among the alternatives
  title: string;
  short: string;
}

const LANE = 5; // px per underline lane
const BAR = 3; // px underline thickness

interface Props {
  text: string;
  sentences: Sentence[];
  spans: ShownSpan[];
  layout: LaneLayout;
  selection: Selection | null;
  activeKey: string | null;
  readOnly: boolean;
  /** Sentences with a model's suggestion still to decide (marked, apart from spans). */
  suggested?: ReadonlySet<number>;
  containerRef: Ref<HTMLDivElement>;
  onSentence(index: number, shift: boolean): void;
  /** A mouse drag across sentences selected this range (whole sentences). */
  onDragSelect?(selection: Selection): void;
  onChip(key: string): void;
  onKeyDown(e: KeyboardEvent): void;
}

type CaretDocument = Document & {
  caretRangeFromPoint?(x: number, y: number): Range | null;
  caretPositionFromPoint?(x: number, y: number): { offsetNode: Node } | null;
};

/**
 * The index of the sentence at a point of the screen, or null (a gap, a chip, outside).
 * Between two lines (the lanes' padding) it is the sentence of the nearest character.
 */
function sentenceAt(x: number, y: number): number | null {
  const hit = document.elementFromPoint(x, y);
  let el = hit?.closest(".sent[data-index]");
  if (!el && hit?.classList.contains("doc-text")) {
    const d = document as CaretDocument;
    const node = d.caretRangeFromPoint?.(x, y)?.startContainer ?? d.caretPositionFromPoint?.(x, y)?.offsetNode;
    const parent = node instanceof Element ? node : node?.parentElement;
    el = parent?.closest(".sent[data-index]");
  }
  return el ? Number(el.getAttribute("data-index")) : null;
}

export function DocumentText(p: Props) {
  // Dragging with the mouse selects the sentences it touches, like click + shift-click.
  const drag = useRef<Drag | null>(null);
  const box = useRef<HTMLDivElement | null>(null);
  const count = p.sentences.length;
  const endDrag = () => {
    drag.current = null;
    box.current?.classList.remove("dragging");
  };
  useEffect(() => {
    window.addEventListener("pointerup", endDrag);
    window.addEventListener("pointercancel", endDrag);
    return () => {
      window.removeEventListener("pointerup", endDrag);
      window.removeEventListener("pointercancel", endDrag);
    };
  }, []);
  const onPointerDown = (e: PointerEvent) => {
    if (e.button !== 0 || e.shiftKey || !p.onDragSelect) return;
    const i = sentenceAt(e.clientX, e.clientY);
    drag.current = i === null ? null : startDrag(i, count);
  };
  const onPointerMove = (e: PointerEvent) => {
    const d = drag.current;
    if (!d) return;
    if ((e.buttons & 1) === 0) return endDrag(); // released outside the window
    const next = dragOver(d, sentenceAt(e.clientX, e.clientY), count);
    if (next.last === d.last && next.moved === d.moved) return;
    drag.current = next;
    if (!next.moved) return;
    if (!d.moved) box.current?.classList.add("dragging");
    window.getSelection()?.removeAllRanges(); // sentences, not characters
    p.onDragSelect?.(dragSelection(next));
  };

  const byKey = useMemo(() => new Map(p.spans.map((s) => [s.key, s])), [p.spans]);
  const pad = p.layout.laneCount * LANE + 2;

  // Background layers (one underline per covering span) and end-of-span chips, per sentence.
  const decorations = useMemo(() => {
    const styles: (Record<string, string> | undefined)[] = [];
    const chips = new Map<number, ShownSpan[]>();
    for (const s of p.spans) {
      const list = chips.get(s.last) ?? [];
      list.push(s);
      chips.set(s.last, list);
    }
    for (let i = 0; i < p.sentences.length; i++) {
      const cover = p.layout.bySentence.get(i);
      if (!cover) continue;
      const images: string[] = [];
      const positions: string[] = [];
      const sizes: string[] = [];
      let tint: string | null = null;
      for (const { key, lane } of cover) {
        const s = byKey.get(key);
        if (!s) continue;
        const active = key === p.activeKey;
        const c = s.color;
        images.push(
          s.optional
            ? `repeating-linear-gradient(90deg, ${c} 0 7px, transparent 7px 11px)`
            : `linear-gradient(${c}, ${c})`,
        );
        const fromBottom = pad - 2 - lane * LANE - BAR;
        positions.push(`0 calc(100% - ${fromBottom}px)`);
        sizes.push(`100% ${active ? BAR + 1 : BAR}px`);
        if (active) tint = c;
      }
      styles[i] = {
        backgroundImage: images.join(", "),
        backgroundPosition: positions.join(", "),
        backgroundSize: sizes.join(", "),
        ...(tint ? { "--tint": tint } : {}),
      };
    }
    return { styles, chips };
  }, [p.spans, p.layout, p.activeKey, p.sentences.length, byKey, pad]);

  const [selFirst, selLast] = p.selection ? range(p.selection) : [-1, -1];
  const focus = p.selection?.focus ?? -1;
  const activeSpan = p.activeKey ? byKey.get(p.activeKey) : undefined;

  // Sentence offsets count code points (as the API does); slice through the mapping.
  const chars = offsetsOf(p.text);
  const parts: preact.JSX.Element[] = [];
  let pos = 0;
  p.sentences.forEach((s, i) => {
    if (s.start > pos) parts.push(<span class="gap">{chars.slice(pos, s.start)}</span>);
    const selected = contains(p.selection, i);
    const inActive = activeSpan ? i >= activeSpan.first && i <= activeSpan.last : false;
    const cls = [
      "sent",
      selected ? "selected" : "",
      selected && i === selFirst ? "sel-first" : "",
      selected && i === selLast ? "sel-last" : "",
      i === focus ? "focus" : "",
      inActive ? "in-active" : "",
      p.suggested?.has(i) ? "suggested" : "",
    ]
      .filter(Boolean)
      .join(" ");
    parts.push(
      <span
        id={`sent-${i}`}
        class={cls}
        role="option"
        aria-selected={selected}
        data-index={i}
        style={decorations.styles[i]}
        onMouseDown={(e) => {
          if (e.shiftKey) e.preventDefault(); // no native text selection on shift-click
        }}
        onClick={(e) => {
          const sel = window.getSelection();
          if (sel && !sel.isCollapsed && sel.toString().length > 1 && !e.shiftKey) return; // copying text
          p.onSentence(i, e.shiftKey);
        }}
      >
        {chars.slice(s.start, s.end)}
      </span>,
    );
    const chips = decorations.chips.get(i);
    if (chips) {
      for (const c of chips) {
        parts.push(
          <button
            type="button"
            class={`chip${c.key === p.activeKey ? " active" : ""}${c.optional ? " optional" : ""}`}
            style={{ "--c": c.color }}
            tabIndex={-1}
            aria-hidden="true"
            title={c.title}
            data-span-key={c.key}
            onClick={() => p.onChip(c.key)}
          >
            {c.short}
          </button>,
        );
      }
    }
    pos = s.end;
  });
  if (pos < chars.length) parts.push(<span class="gap">{chars.slice(pos)}</span>);

  return (
    <div
      ref={(el) => {
        box.current = el;
        const r = p.containerRef;
        if (typeof r === "function") r(el);
        else if (r) r.current = el;
      }}
      onPointerDown={onPointerDown}
      onPointerMove={onPointerMove}
      class={`doc-text${p.readOnly ? " read-only" : ""}`}
      role="listbox"
      aria-multiselectable="true"
      aria-label="Document text: arrow keys move between sentences, Shift+arrows extend the selection, Enter labels it"
      aria-activedescendant={focus >= 0 ? `sent-${focus}` : undefined}
      tabIndex={0}
      style={{ "--pad": `${pad}px` }}
      onKeyDown={p.onKeyDown}
    >
      {parts}
    </div>
  );
}
