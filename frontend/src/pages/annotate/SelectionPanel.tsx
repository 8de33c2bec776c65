import type { ShownSpan } from "../../components/DocumentText";
import { ShortcutsHelp } from "./ShortcutsHelp";
import { SpansHere } from "./SpanListPanel";

/** The sidebar when no span is open: the selection and what can be done with it. */
export function SelectionPanel({
  selText,
  readOnly,
  spansHere,
  noSpans,
  withSuggestions = false,
  onLabel,
  onOpen,
}: {
  /** "Sentences 2–3" (empty: nothing selected). */
  selText: string;
  readOnly: boolean;
  spansHere: ShownSpan[];
  noSpans: boolean;
  /** The document has suggestions: the help lists their keys. */
  withSuggestions?: boolean;
  onLabel(): void;
  onOpen(key: string): void;
}) {
  return (
    <section class="panel browse" aria-label="Selection">
      {selText ? (
        <>
          <div class="panel-head">
            <h2>{selText} selected</h2>
          </div>
          {!readOnly && (
            <button type="button" class="btn primary block" onClick={onLabel}>
              Label the selection <kbd>Enter</kbd>
            </button>
          )}
          <SpansHere spans={spansHere} onOpen={onOpen} />
        </>
      ) : (
        <>
          <div class="panel-head">
            <h2>{readOnly ? "Read-only" : "Select sentences to annotate"}</h2>
          </div>
          <p class="muted small">
            {readOnly
              ? "Click a span to see its labels and justification."
              : "Click a sentence (Shift+click to extend) or drag across sentences, or use the keyboard: focus the text and press ↓."}
          </p>
        </>
      )}
      <ShortcutsHelp open={noSpans} suggestions={withSuggestions} />
    </section>
  );
}
