import type { Ref } from "preact";

/** "Submit this document?" with the number of spans; read-only afterwards. */
export function SubmitDialog({
  dialogRef,
  spanCount,
  submitting,
  onSubmit,
}: {
  dialogRef: Ref<HTMLDialogElement>;
  spanCount: number;
  submitting: boolean;
  onSubmit(): void;
}) {
  const close = () => (dialogRef as { current: HTMLDialogElement | null }).current?.close();
  return (
    <dialog ref={dialogRef} class="dialog" aria-labelledby="submit-title">
      <h2 id="submit-title">Submit this document?</h2>
      <p>
        You marked <strong>{spanCount}</strong> span{spanCount === 1 ? "" : "s"}. After submitting, the annotation becomes
        read-only{spanCount === 0 ? " and the document counts as containing no fallacy" : ""}.
      </p>
      <div class="dialog-actions">
        <button type="button" class="btn" onClick={close}>
          Keep working
        </button>
        <button type="button" class="btn primary" disabled={submitting} onClick={onSubmit}>
          {submitting ? "Submitting…" : "Submit"}
        </button>
      </div>
    </dialog>
  );
}
