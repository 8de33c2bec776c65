// The document page's sidebar: the label picker, else the open span, else the selection;
// then what the page puts under it (the suggestions) and the list of spans.

import type { ComponentChildren } from "preact";
import { LabelPicker } from "../../components/LabelPicker";
import type { LabelOption } from "../../lib/labels";
import type { TemplateMode } from "../../lib/template";
import * as S from "../../lib/selection";
import type { Sentence } from "../../types";
import { OpenSpanPane } from "./OpenSpanPane";
import { SelectionPanel } from "./SelectionPanel";
import { SpanListPanel } from "./SpanListPanel";
import { rangeText } from "./spans";
import type { Editor } from "./useAnnotationEditor";
import type { SpanSelection } from "./useSpanSelection";

export interface WorkspaceSidebarProps {
  ws: SpanSelection;
  ed: Editor;
  text: string;
  sentences: Sentence[];
  options: LabelOption[];
  optionByName: Map<string, LabelOption>;
  labelOrder: string[];
  /** The document has suggestions (the selection's help lists their keys). */
  withSuggestions: boolean;
  /** The project's justification templates (off: the span editor shows none). */
  templates?: TemplateMode;
  focusDoc: () => void;
  children?: ComponentChildren;
}

export function WorkspaceSidebar({ ws, ed, text, sentences, options, optionByName, labelOrder, withSuggestions, templates, focusDoc, children }: WorkspaceSidebarProps) {
  const { picker, active, activeShown, sel } = ws;
  const readOnly = ed.readOnly;
  const spans = ed.spans;
  const selRange = sel ? S.range(sel) : null;
  const spansHere = sel ? (ws.layout.bySentence.get(sel.focus) ?? []).map((h) => ws.shownByKey.get(h.key)!).filter(Boolean) : [];
  return (
    <aside class="sidebar" aria-label="Annotation tools">
      {picker ? (
        <LabelPicker
          key={picker.mode === "edit" ? `edit-${picker.key}` : `new-${picker.first}-${picker.last}`}
          options={options}
          initial={picker.mode === "edit" ? (spans.find((s) => s.key === picker.key)?.labels ?? []) : []}
          title={picker.mode === "edit" ? "Edit labels" : `Label ${rangeText(picker.first, picker.last, true)}`}
          editing={picker.mode === "edit"}
          sameRangeSpan={picker.mode === "create" && !!ws.sameRange(picker.first, picker.last)}
          onConfirm={ws.onPickerConfirm}
          onCancel={() => {
            ws.setPicker(null);
            focusDoc();
          }}
          onFocusLabel={(o) => o && ws.setFocusLabel(o)}
        />
      ) : active && activeShown ? (
        <OpenSpanPane
          span={active}
          shown={activeShown}
          text={text}
          options={optionByName}
          labelOrder={labelOrder}
          readOnly={readOnly}
          templates={templates}
          canMove={!!sel && (S.toChars(sel, sentences).start !== active.start || S.toChars(sel, sentences).end !== active.end)}
          ed={ed}
          onEditLabels={() => ws.setPicker({ mode: "edit", key: active.key })}
          onMove={ws.moveActive}
          onDelete={ws.deleteActive}
          onClose={() => ws.setActiveKey(null)}
          onFocusLabel={ws.setFocusLabel}
          focusDoc={focusDoc}
        />
      ) : (
        <SelectionPanel
          selText={selRange ? rangeText(selRange[0], selRange[1]) : ""}
          readOnly={readOnly}
          spansHere={spansHere}
          noSpans={spans.length === 0}
          withSuggestions={withSuggestions}
          onLabel={ws.openPicker}
          onOpen={(key) => ws.activate(key)}
        />
      )}

      {children}

      <SpanListPanel spans={ws.shown} activeKey={ws.activeKey} onOpen={(key) => ws.activate(key)} />
    </aside>
  );
}
