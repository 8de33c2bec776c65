// The rule file editor: CodeMirror 6 with line numbers, Prolog highlighting, undo history and
// the line swipl refused marked (its number and its text). Loaded on demand (its own chunk).

import { defaultKeymap, history, historyKeymap } from "@codemirror/commands";
import { HighlightStyle, StreamLanguage, bracketMatching, syntaxHighlighting } from "@codemirror/language";
import { EditorState, type Extension, RangeSet, StateEffect, StateField } from "@codemirror/state";
import { Decoration, type DecorationSet, EditorView, GutterMarker, drawSelection, gutterLineClass, highlightActiveLine, highlightActiveLineGutter, keymap, lineNumbers } from "@codemirror/view";
import { tags } from "@lezer/highlight";
import { useEffect, useRef } from "preact/hooks";
import { prolog } from "./prolog";

/** Mark this line (1-based) as refused, or none. */
const setRefused = StateEffect.define<number | null>();

const refusedLineDeco = Decoration.line({ class: "cm-refused-line", attributes: { "data-testid": "refused-line" } });
const refusedGutter = new (class extends GutterMarker {
  elementClass = "cm-refused-gutter";
})();

interface Refused {
  lines: DecorationSet;
  gutter: RangeSet<GutterMarker>;
}

const NONE: Refused = { lines: Decoration.none, gutter: RangeSet.empty };

/** The refused line's marks: set by `setRefused`, kept on their line through edits elsewhere,
 *  dropped once that line itself is edited (swipl's verdict no longer applies to it). */
const refusedField = StateField.define<Refused>({
  create: () => NONE,
  update(value, tr) {
    for (const e of tr.effects) {
      if (!e.is(setRefused)) continue;
      const n = e.value;
      if (n == null || n < 1 || n > tr.state.doc.lines) return NONE;
      const from = tr.state.doc.line(n).from;
      return { lines: Decoration.set([refusedLineDeco.range(from)]), gutter: RangeSet.of([refusedGutter.range(from)]) };
    }
    if (!tr.docChanged || value === NONE) return value;
    const at = value.lines.iter().from;
    const line = tr.startState.doc.lineAt(at);
    let touched = false;
    tr.changes.iterChangedRanges((fromA, toA) => {
      if (fromA <= line.to && toA >= line.from) touched = true;
    });
    if (touched) return NONE;
    return { lines: value.lines.map(tr.changes), gutter: value.gutter.map(tr.changes) };
  },
  provide: (f) => [EditorView.decorations.from(f, (v) => v.lines), gutterLineClass.from(f, (v) => v.gutter)],
});

const theme = EditorView.theme({
  "&": { fontSize: "0.85rem", border: "1px solid var(--line-2)", borderRadius: "8px", background: "#fff" },
  "&.cm-focused": { outline: "2px solid var(--accent)", outlineOffset: "1px" },
  ".cm-scroller": { fontFamily: "var(--mono)", minHeight: "24rem", maxHeight: "70vh", lineHeight: "1.5" },
  ".cm-gutters": { background: "#f6f7f9", color: "var(--muted)", borderRight: "1px solid var(--line)", borderRadius: "8px 0 0 8px" },
  ".cm-refused-line": { background: "#fdecec", boxShadow: "inset 3px 0 0 var(--err)" },
  ".cm-refused-gutter": { background: "#f8d4d4", color: "var(--err)", fontWeight: "700" },
});

const highlight = HighlightStyle.define([
  { tag: tags.comment, color: "#6b7280", fontStyle: "italic" },
  { tag: tags.variableName, color: "#9a3412" },
  { tag: tags.function(tags.variableName), color: "#1e40af", fontWeight: "600" },
  { tag: tags.atom, color: "#1d4ed8" },
  { tag: tags.string, color: "#15803d" },
  { tag: tags.number, color: "#0f766e" },
  { tag: tags.operator, color: "#7e22ce" },
]);

/** The per-response style nonce the server put in the page (see frontend_views.py). */
function styleNonce(): string {
  return document.querySelector<HTMLMetaElement>('meta[property="csp-nonce"]')?.nonce ?? "";
}

function extensions(label: string, onChange: (text: string) => void, onRefusedCleared: () => void): Extension[] {
  return [
    EditorView.cspNonce.of(styleNonce()),
    lineNumbers(),
    highlightActiveLineGutter(),
    highlightActiveLine(),
    drawSelection(),
    history(),
    bracketMatching(),
    StreamLanguage.define(prolog),
    syntaxHighlighting(highlight),
    keymap.of([...defaultKeymap, ...historyKeymap]),
    refusedField,
    theme,
    EditorView.contentAttributes.of({ "aria-label": label, spellcheck: "false" }),
    EditorView.updateListener.of((u) => {
      if (u.docChanged) onChange(u.state.doc.toString());
      if (u.docChanged && u.startState.field(refusedField) !== NONE && u.state.field(refusedField) === NONE) onRefusedCleared();
    }),
  ];
}

export interface RuleEditorProps {
  /** The text the editor starts with; from then on the editor holds it and reports each
   *  change (another text: a new editor, by `key`). Echoing it back would race typing. */
  initial: string;
  onChange(text: string): void;
  /** The line (1-based) swipl refused, marked and scrolled to (each new refusal a new
   *  object, so the same line is marked again); null: none. */
  refused: { line: number } | null;
  /** The refused line was edited (its mark is gone). */
  onRefusedCleared(): void;
  label: string;
}

export function RuleEditor({ initial, onChange, refused, onRefusedCleared, label }: RuleEditorProps) {
  const host = useRef<HTMLDivElement>(null);
  const view = useRef<EditorView | null>(null);
  const callbacks = useRef({ onChange, onRefusedCleared });
  callbacks.current = { onChange, onRefusedCleared };

  useEffect(() => {
    const v = new EditorView({
      parent: host.current!,
      state: EditorState.create({
        doc: initial,
        extensions: extensions(
          label,
          (text) => callbacks.current.onChange(text),
          () => callbacks.current.onRefusedCleared(),
        ),
      }),
    });
    view.current = v;
    return () => {
      v.destroy();
      view.current = null;
    };
  }, []);

  useEffect(() => {
    const v = view.current;
    if (!v) return;
    const line = refused?.line ?? null;
    const at = line != null && line >= 1 && line <= v.state.doc.lines ? v.state.doc.line(line).from : null;
    v.dispatch({
      effects: [setRefused.of(line), ...(at != null ? [EditorView.scrollIntoView(at, { y: "center" })] : [])],
      selection: at != null ? { anchor: at } : undefined,
    });
    if (at != null) v.focus(); // the caret at the refused line, ready to fix it
  }, [refused]);

  return <div ref={host} class="rule-editor" data-testid="rule-editor" />;
}
