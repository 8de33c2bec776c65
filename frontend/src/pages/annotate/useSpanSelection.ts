// What the document page points at: the selected sentences, the open span and the label
// picker, with the actions on them (label the selection, open, cycle, move or delete a span,
// undo) and the keys that drive them. The spans themselves change through the editor.

import { useEffect, useMemo, useState } from "preact/hooks";
import type { ConfirmMode } from "../../components/LabelPicker";
import { type LabelOption, sortLabels } from "../../lib/labels";
import { layoutLanes } from "../../lib/layout";
import * as S from "../../lib/selection";
import { NO_FALLACY, type Sentence } from "../../types";
import type { DocKeyAction } from "./keys";
import { shownSpans } from "./spans";
import type { ShowToast } from "./Toasts";
import type { Editor } from "./useAnnotationEditor";

export type PickerState = null | { mode: "create"; first: number; last: number } | { mode: "edit"; key: string };

export interface SpanSelectionInput {
  ed: Editor;
  sentences: Sentence[];
  optionByName: Map<string, LabelOption>;
  labelOrder: string[];
  toast: ShowToast;
  /** Moves the focus into the span editor after the next render. */
  focusEditor: () => void;
}

export function useSpanSelection({ ed, sentences, optionByName, labelOrder, toast, focusEditor }: SpanSelectionInput) {
  const { spans, readOnly } = ed;
  const [sel, setSel] = useState<S.Selection | null>(null);
  const [activeKey, setActiveKey] = useState<string | null>(null);
  const [picker, setPicker] = useState<PickerState>(null);
  // The label the guidelines panel shows (the open span's, or the one last looked at).
  const [focusLabel, setFocusLabel] = useState<LabelOption | null>(null);

  const count = sentences.length;
  const shown = useMemo(() => shownSpans(spans, sentences, optionByName), [spans, sentences, optionByName]);
  const shownByKey = useMemo(() => new Map(shown.map((s) => [s.key, s])), [shown]);
  const layout = useMemo(() => layoutLanes(shown), [shown]);
  const active = activeKey ? spans.find((s) => s.key === activeKey) : undefined;
  const activeShown = activeKey ? shownByKey.get(activeKey) : undefined;

  useEffect(() => {
    if (activeKey && !active) setActiveKey(null);
  }, [activeKey, active]);

  useEffect(() => {
    if (sel) document.getElementById(`sent-${sel.focus}`)?.scrollIntoView({ block: "nearest" });
  }, [sel?.focus]);

  useEffect(() => {
    const o = active ? optionByName.get(active.labels.find((l) => l !== NO_FALLACY) ?? "") : undefined;
    if (o) setFocusLabel(o);
  }, [activeKey]);

  const sameRange = (first: number, last: number, exceptKey?: string) =>
    shown.find((s) => s.first === first && s.last === last && s.key !== exceptKey);

  const openPicker = () => {
    if (readOnly || !sel) return;
    const [first, last] = S.range(sel);
    setActiveKey(null);
    setPicker({ mode: "create", first, last });
  };

  const onPickerConfirm = (labels: string[], mode: ConfirmMode) => {
    if (!picker) return;
    if (picker.mode === "edit") {
      const cur = ed.spansRef.current.find((s) => s.key === picker.key);
      if (cur) {
        const details = Object.fromEntries(Object.entries(cur.details).filter(([l]) => labels.includes(l)));
        ed.updateSpan(cur.key, { labels, details });
      }
      setPicker(null);
      focusEditor();
      return;
    }
    const { first, last } = picker;
    const existing = sameRange(first, last);
    let key: string;
    if (mode === "merge" && existing) {
      const cur = ed.spansRef.current.find((s) => s.key === existing.key)!;
      key = cur.key;
      ed.updateSpan(key, { labels: sortLabels([...new Set([...cur.labels, ...labels])], labelOrder) });
    } else {
      key = ed.createSpan({ start: sentences[first].start, end: sentences[last].end, labels: sortLabels(labels, labelOrder), details: {} });
    }
    setPicker(null);
    setActiveKey(key);
    focusEditor();
  };

  const activate = (key: string, selectRange = true) => {
    setPicker(null);
    setActiveKey(key);
    const s = shownByKey.get(key);
    if (s && selectRange) setSel({ anchor: s.last, focus: s.first });
  };

  const cycleSpanAtFocus = () => {
    if (!sel) return;
    const here = layout.bySentence.get(sel.focus) ?? [];
    if (!here.length) {
      toast("No span covers this sentence.");
      return;
    }
    const idx = here.findIndex((h) => h.key === activeKey);
    setPicker(null);
    setActiveKey(here[(idx + 1) % here.length].key);
  };

  const moveActive = () => {
    if (!active || !sel || readOnly) return;
    const { start, end } = S.toChars(sel, sentences);
    if (start === active.start && end === active.end) return;
    ed.updateSpan(active.key, { start, end });
    toast("Span moved to the selected sentences.");
  };

  const deleteActive = () => {
    if (!active) return;
    ed.deleteSpan(active.key);
    setActiveKey(null);
  };

  const undo = () => {
    const key = ed.undo();
    if (key) setActiveKey(key);
  };

  /** Select sentence `index` (shift: extend the selection to it) from the document pane. */
  const clickSentence = (index: number, shift: boolean) => {
    setSel((s) => (shift ? S.extendTo(s, index, count) : S.select(index, count)));
    if (!shift && activeKey && !(activeShown && index >= activeShown.first && index <= activeShown.last)) setActiveKey(null);
  };

  /** Select sentence `index` alone, with nothing open (a suggestion chosen). */
  const selectOnly = (index: number) => {
    setPicker(null);
    setActiveKey(null);
    setSel(S.select(index, count));
  };

  /** Runs a selection key's action (the others are the page's). */
  const runKey = (action: Exclude<DocKeyAction, { kind: "guide" | "suggestion" }>) => {
    switch (action.kind) {
      case "move":
        return setSel((s) => S.move(s, action.delta, action.extend, count));
      case "jump":
        return setSel((s) => S.jump(s, action.to === "first" ? 0 : count - 1, action.extend, count));
      case "label":
        if (!sel) setSel(S.move(null, 1, false, count));
        else openPicker();
        return;
      case "cycle":
        return cycleSpanAtFocus();
      case "editLabels":
        if (active) setPicker({ mode: "edit", key: active.key });
        return;
      case "moveSpan":
        return moveActive();
      case "delete":
        return deleteActive();
      case "escape":
        if (picker) setPicker(null);
        else if (activeKey) setActiveKey(null);
        else setSel(null);
    }
  };

  return {
    sel,
    setSel,
    activeKey,
    setActiveKey,
    picker,
    setPicker,
    focusLabel,
    setFocusLabel,
    shown,
    shownByKey,
    layout,
    active,
    activeShown,
    sameRange,
    openPicker,
    onPickerConfirm,
    activate,
    moveActive,
    deleteActive,
    undo,
    clickSentence,
    selectOnly,
    runKey,
  };
}

export type SpanSelection = ReturnType<typeof useSpanSelection>;
