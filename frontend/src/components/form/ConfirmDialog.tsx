// A modal confirmation (<dialog>): shown while `open`, Escape or Cancel calls onCancel.

import type { ComponentChildren } from "preact";
import { useEffect, useRef } from "preact/hooks";

/** A ref for a <dialog> that is shown as a modal while `open` and closed otherwise. */
export function useModal(open: boolean) {
  const ref = useRef<HTMLDialogElement>(null);
  useEffect(() => {
    const d = ref.current;
    if (!d) return;
    if (open && !d.open) d.showModal();
    if (!open && d.open) d.close();
  }, [open]);
  return ref;
}

export function ConfirmDialog({
  open,
  title,
  children,
  confirmLabel = "Confirm",
  cancelLabel = "Cancel",
  danger = false,
  busy = false,
  onConfirm,
  onCancel,
  testId = "confirm-dialog",
}: {
  open: boolean;
  title: string;
  children?: ComponentChildren;
  confirmLabel?: string;
  cancelLabel?: string;
  danger?: boolean;
  busy?: boolean;
  onConfirm: () => void;
  onCancel: () => void;
  testId?: string;
}) {
  const ref = useModal(open);
  return (
    <dialog
      ref={ref}
      class="dialog"
      aria-labelledby={`${testId}-title`}
      data-testid={testId}
      onCancel={(e) => {
        e.preventDefault();
        onCancel();
      }}
    >
      {open && (
        <>
          <h2 id={`${testId}-title`}>{title}</h2>
          {children}
          <div class="dialog-actions">
            <button type="button" class="btn" onClick={onCancel} disabled={busy} data-testid={`${testId}-cancel`}>
              {cancelLabel}
            </button>
            <button type="button" class={`btn ${danger ? "danger" : "primary"}`} onClick={onConfirm} disabled={busy} data-testid={`${testId}-confirm`}>
              {busy ? "Working…" : confirmLabel}
            </button>
          </div>
        </>
      )}
    </dialog>
  );
}
