import type { Ref } from "preact";
import type { EmptySlots, TemplateMode } from "../../lib/template";

/** A span with empty template slots, as the dialog lists it. */
export interface EmptySlotsRow extends EmptySlots {
  /** "Sentence 3" / "Sentences 3–4". */
  where: string;
}

/**
 * "Submit this document?" with the number of spans; read-only afterwards. Spans whose
 * templates have empty slots are listed, each a link to the span: a warning when templates
 * are optional, a refusal (Submit disabled) when they are required.
 */
export function SubmitDialog({
  dialogRef,
  spanCount,
  submitting,
  templates = "optional",
  empty = [],
  onGo,
  onSubmit,
}: {
  dialogRef: Ref<HTMLDialogElement>;
  spanCount: number;
  submitting: boolean;
  templates?: TemplateMode;
  empty?: EmptySlotsRow[];
  /** Close the dialog and open the span at its first empty slot. */
  onGo?(row: EmptySlotsRow): void;
  onSubmit(): void;
}) {
  const close = () => (dialogRef as { current: HTMLDialogElement | null }).current?.close();
  const listed = templates === "off" ? [] : empty;
  const refused = templates === "required" && listed.length > 0;
  const spansWithGaps = new Set(listed.map((r) => r.key)).size;
  return (
    <dialog ref={dialogRef} class="dialog" aria-labelledby="submit-title" data-testid="submit-dialog">
      <h2 id="submit-title">{refused ? "Fill the templates first" : "Submit this document?"}</h2>
      <p>
        You marked <strong>{spanCount}</strong> span{spanCount === 1 ? "" : "s"}. After submitting, the annotation becomes
        read-only{spanCount === 0 ? " and the document counts as containing no fallacy" : ""}.
      </p>
      {listed.length > 0 && (
        <div class={`template-gaps ${refused ? "refused" : "warned"}`} role={refused ? "alert" : "status"} data-testid="template-gaps" data-mode={templates}>
          <p>
            {refused
              ? `This project requires every template slot. ${spansWithGaps === 1 ? "One span has" : `${spansWithGaps} spans have`} empty slots:`
              : `${spansWithGaps === 1 ? "One span has" : `${spansWithGaps} spans have`} empty template slots. They are optional in this project; submit anyway, or fill them first:`}
          </p>
          <ul>
            {listed.map((row) => (
              <li key={`${row.key}-${row.label}`}>
                <a
                  href={`#span-${row.key}`}
                  data-testid="template-gap"
                  data-span={row.key}
                  onClick={(e) => {
                    e.preventDefault();
                    onGo?.(row);
                  }}
                >
                  {row.where}, {row.label}
                </a>
                <span class="muted">
                  {" "}
                  · empty: {row.slots.join(", ")}
                </span>
              </li>
            ))}
          </ul>
        </div>
      )}
      <div class="dialog-actions">
        <button type="button" class="btn" onClick={close}>
          Keep working
        </button>
        <button type="button" class="btn primary" disabled={submitting || refused} onClick={onSubmit} data-testid="submit-confirm">
          {submitting ? "Submitting…" : "Submit"}
        </button>
      </div>
    </dialog>
  );
}
