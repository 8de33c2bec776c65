// Previous / next document of the adjudication queue, in the queue page's order (undecided
// first, highest disagreement first), with "k / n" between: two links and the keys [ and ]. The page decides
// how to leave (`onLeave`: it asks first when the gold spans are not saved).

import { useEffect, useRef } from "preact/hooks";
import { useModal } from "../../../components/form/ConfirmDialog";
import { useResource } from "../../../hooks/useResource";
import { paths } from "../../../router";
import type { AdjudicationNeighbours } from "../../../types";
import { adjNavKey, positionText } from "./nav";

const typing = (t: EventTarget | null) => t instanceof HTMLElement && (t.isContentEditable || ["INPUT", "TEXTAREA", "SELECT"].includes(t.tagName));

export function AdjudicationNav({ projectId, documentId, onLeave }: { projectId: number; documentId: number; onLeave(to: string): void }) {
  const { data } = useResource<AdjudicationNeighbours>(`/api/documents/${documentId}/adjudication/neighbours/`);
  // The latest render's neighbours and leave (assigned while rendering, so a key pressed as
  // soon as the links show finds them; the listener is there from the first paint on).
  const latest = useRef({ data, onLeave });
  latest.current = { data, onLeave };

  useEffect(() => {
    const onKey = (e: KeyboardEvent) => {
      const { data: here, onLeave: leave } = latest.current;
      if (e.defaultPrevented || !here) return;
      const dialog = document.querySelector("dialog[open]") !== null;
      const delta = adjNavKey(e, { typing: typing(e.target), dialog });
      if (!delta) return;
      e.preventDefault();
      const to = delta === -1 ? here.previous : here.next;
      if (to) leave(paths.adjudicate(projectId, to.id));
    };
    window.addEventListener("keydown", onKey);
    return () => window.removeEventListener("keydown", onKey);
  }, [projectId]);

  if (!data) return null;
  const link = (n: { id: number; name: string } | null, rel: "prev" | "next", text: string, key: string) => {
    const missing = rel === "prev" ? (data.position == null ? "This document is not in the queue" : "First document of the queue") : "Last document of the queue";
    if (!n)
      return (
        <span class="btn ghost small disabled" aria-disabled="true" title={missing} data-testid={`adj-${rel}`}>
          {text} <kbd>{key}</kbd>
        </span>
      );
    const href = paths.adjudicate(projectId, n.id);
    return (
      <a
        class="btn ghost small"
        rel={rel}
        href={href}
        title={`${n.name || `Document ${n.id}`} (key ${key})`}
        data-testid={`adj-${rel}`}
        onClick={(e: MouseEvent) => {
          if (e.button !== 0 || e.metaKey || e.ctrlKey || e.shiftKey || e.altKey) return;
          e.preventDefault();
          onLeave(href);
        }}
      >
        {text} <kbd>{key}</kbd>
      </a>
    );
  };
  const where = data.position == null ? `Not in the adjudication queue (${data.total} documents)` : `Document ${data.position} of ${data.total} in the adjudication queue, undecided first, highest disagreement first`;
  return (
    <nav class="adj-nav" aria-label="Documents of the adjudication queue" data-testid="adj-nav">
      {link(data.previous, "prev", "← Previous", "[")}
      <span class="adj-nav-pos muted small" title={where} data-testid="adj-position">
        {positionText(data.position, data.total)}
      </span>
      {link(data.next, "next", "Next →", "]")}
    </nav>
  );
}

/** Leaving with unsaved gold spans: save and go, discard and go, or stay (Escape). */
export function LeaveDialog({ open, saving, onSave, onDiscard, onStay }: { open: boolean; saving: boolean; onSave(): void; onDiscard(): void; onStay(): void }) {
  const ref = useModal(open);
  return (
    <dialog
      ref={ref}
      class="dialog"
      aria-labelledby="leave-dialog-title"
      data-testid="leave-dialog"
      onCancel={(e) => {
        e.preventDefault();
        onStay();
      }}
    >
      {open && (
        <>
          <h2 id="leave-dialog-title">Unsaved gold spans</h2>
          <p>This document's gold spans have changes that are not saved. Save them before leaving?</p>
          <div class="dialog-actions">
            <button type="button" class="btn" onClick={onStay} disabled={saving} data-testid="leave-stay">
              Stay
            </button>
            <button type="button" class="btn danger" onClick={onDiscard} disabled={saving} data-testid="leave-discard">
              Discard and leave
            </button>
            <button type="button" class="btn primary" onClick={onSave} disabled={saving} data-testid="leave-save">
              {saving ? "Saving…" : "Save and leave"}
            </button>
          </div>
        </>
      )}
    </dialog>
  );
}
