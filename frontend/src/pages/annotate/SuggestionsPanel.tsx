import { categoryColor } from "../../lib/colors";
import type { LabelOption } from "../../lib/labels";
import { decidedText, isPending, labelText, modelText, type Suggestion } from "./suggestions";

/**
 * The models' suggestions, apart from the annotator's own spans: each with its labels, its
 * sentence and the run (model) that made it; undecided ones can be accepted or rejected
 * (Y / N on the focused one, Shift+Y for all of the focused sentence).
 */
export function SuggestionsPanel({
  suggestions,
  focusedId,
  busy,
  readOnly,
  labelOrder,
  options,
  onFocus,
  onDecide,
}: {
  suggestions: Suggestion[];
  focusedId: number | null;
  busy: boolean;
  readOnly: boolean;
  labelOrder: string[];
  options: Map<string, LabelOption>;
  onFocus(s: Suggestion): void;
  onDecide(s: Suggestion, decision: "accept" | "reject"): void;
}) {
  const pending = suggestions.filter(isPending).length;
  const decided = decidedText(suggestions);
  return (
    <section class="panel suggestions" aria-labelledby="suggestions-title" data-testid="suggestions-panel">
      <div class="panel-head">
        <h2 id="suggestions-title">
          Suggestions ({pending} to decide)
        </h2>
      </div>
      <p class="muted small">
        From models, not yours until accepted. <kbd>S</kbd> next, <kbd>Y</kbd> accept, <kbd>N</kbd> reject, <kbd>Shift</kbd>+<kbd>Y</kbd> accept all on the sentence.
        {decided && <> Decided: {decided}.</>}
      </p>
      <ul class="span-list suggestion-list">
        {suggestions.map((s) => {
          const color = categoryColor(options.get(s.labels[0])?.categoryIndex);
          const focused = s.id === focusedId;
          return (
            <li
              key={s.id}
              class={`suggestion${focused ? " focused" : ""}`}
              data-testid="suggestion"
              data-id={s.id}
              data-decision={s.decision ?? "pending"}
              data-sentence={s.unit_index}
              aria-current={focused}
              style={{ "--c": color }}
            >
              <button type="button" class={`span-item${focused ? " active" : ""}`} style={{ "--c": color }} onClick={() => onFocus(s)} title={`Suggested by ${modelText(s.run)}`}>
                <span class="swatch suggested" aria-hidden="true" />
                <span class="span-labels">
                  {labelText(s, labelOrder)}
                  <span class="suggestion-model muted" data-testid="suggestion-model">
                    {modelText(s.run)}
                  </span>
                </span>
                <span class="span-range muted">S{s.unit_index + 1}</span>
              </button>
              {isPending(s) ? (
                !readOnly && (
                  <span class="suggestion-actions">
                    <button type="button" class="btn small" disabled={busy} onClick={() => onDecide(s, "accept")} aria-label={`Accept ${s.labels.join(", ")}`}>
                      Accept
                    </button>
                    <button type="button" class="btn small ghost" disabled={busy} onClick={() => onDecide(s, "reject")} aria-label={`Reject ${s.labels.join(", ")}`}>
                      Reject
                    </button>
                  </span>
                )
              ) : (
                <span class={`suggestion-state ${s.decision}`}>{s.decision === "accept" ? "✓ accepted" : "✗ rejected"}</span>
              )}
            </li>
          );
        })}
      </ul>
    </section>
  );
}
