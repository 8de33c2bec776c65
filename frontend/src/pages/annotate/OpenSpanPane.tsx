import { useRef } from "preact/hooks";
import type { ShownSpan } from "../../components/DocumentText";
import { SpanEditor } from "../../components/SpanEditor";
import { type LabelOption, toggleLabel } from "../../lib/labels";
import { sliceText } from "../../lib/offsets";
import type { TemplateMode } from "../../lib/template";
import { type LabelDetail, NO_FALLACY } from "../../types";
import { fieldsOf, type LocalSpan } from "./spans";
import type { Editor } from "./useAnnotationEditor";

/** The sidebar with a span open: its labels, the justification templates, its actions. */
export function OpenSpanPane({
  span,
  shown,
  text,
  options,
  labelOrder,
  readOnly,
  templates,
  canMove,
  ed,
  onEditLabels,
  onMove,
  onDelete,
  onClose,
  onFocusLabel,
  focusDoc,
}: {
  span: LocalSpan;
  shown: ShownSpan;
  text: string;
  options: Map<string, LabelOption>;
  labelOrder: string[];
  readOnly: boolean;
  templates?: TemplateMode;
  canMove: boolean;
  ed: Editor;
  onEditLabels(): void;
  onMove(): void;
  onDelete(): void;
  onClose(): void;
  onFocusLabel(o: LabelOption): void;
  focusDoc(): void;
}) {
  // Typing in a field is one undo step: the span as it was when the field got focus.
  const snapshot = useRef<{ key: string; before: ReturnType<typeof fieldsOf> } | null>(null);
  return (
    <div
      onKeyDown={(e) => {
        if (e.key === "Escape") {
          e.preventDefault();
          (e.target as HTMLElement).blur?.();
          focusDoc();
        }
      }}
    >
      <SpanEditor
        span={{ key: span.key, first: shown.first, last: shown.last, labels: span.labels, details: span.details, excerpt: sliceText(text, span.start, span.end) }}
        options={options}
        readOnly={readOnly}
        templates={templates}
        canMove={canMove}
        onDetail={(label: string, detail: LabelDetail) =>
          ed.updateSpan(span.key, { details: { ...span.details, [label]: detail } }, { undo: false, delay: 400 })
        }
        onToggleNoFallacy={() => ed.updateSpan(span.key, { labels: toggleLabel(span.labels, NO_FALLACY, labelOrder) })}
        onEditLabels={onEditLabels}
        onMove={onMove}
        onDelete={() => {
          onDelete();
          focusDoc();
        }}
        onClose={() => {
          onClose();
          focusDoc();
        }}
        onFocusLabel={(o) => {
          if (o) onFocusLabel(o);
        }}
        onEditStart={() => {
          snapshot.current = { key: span.key, before: fieldsOf(span) };
        }}
        onEditEnd={() => {
          const snap = snapshot.current;
          snapshot.current = null;
          const cur = snap && ed.spansRef.current.find((s) => s.key === snap.key);
          if (snap && cur && JSON.stringify(cur.details) !== JSON.stringify(snap.before.details)) {
            ed.pushUndo({ kind: "update", key: snap.key, before: snap.before });
          }
        }}
      />
    </div>
  );
}
