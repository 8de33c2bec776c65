import type { Ref } from "preact";
import { useMemo } from "preact/hooks";
import type { LaneLayout } from "../lib/layout";
import { contains, range, type Selection } from "../lib/selection";
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
  containerRef: Ref<HTMLDivElement>;
  onSentence(index: number, shift: boolean): void;
  onChip(key: string): void;
  onKeyDown(e: KeyboardEvent): void;
}

export function DocumentText(p: Props) {
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

  const parts: preact.JSX.Element[] = [];
  let pos = 0;
  p.sentences.forEach((s, i) => {
    if (s.start > pos) parts.push(<span class="gap">{p.text.slice(pos, s.start)}</span>);
    const selected = contains(p.selection, i);
    const inActive = activeSpan ? i >= activeSpan.first && i <= activeSpan.last : false;
    const cls = [
      "sent",
      selected ? "selected" : "",
      selected && i === selFirst ? "sel-first" : "",
      selected && i === selLast ? "sel-last" : "",
      i === focus ? "focus" : "",
      inActive ? "in-active" : "",
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
        {p.text.slice(s.start, s.end)}
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
  if (pos < p.text.length) parts.push(<span class="gap">{p.text.slice(pos)}</span>);

  return (
    <div
      ref={p.containerRef}
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
