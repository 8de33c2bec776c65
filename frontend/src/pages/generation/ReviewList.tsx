// The items of a generation job to review: accept (as is or edited), reject, or undo.

import { useState } from "preact/hooks";
import { ApiError, post } from "../../api";
import type { GeneratedItem } from "../../types";
import { fieldMessages, fixed, itemMean } from "./logic";

/** The items to review: accept (as is or edited), reject, or undo. */
export function ReviewList({ items, onChange }: { items: GeneratedItem[]; onChange: () => void }) {
  return (
    <section class="panel" aria-labelledby="review-title" data-testid="generation-review">
      <div class="panel-head">
        <h2 id="review-title">Review the items</h2>
      </div>
      {items.length === 0 && <p class="muted">No item to review.</p>}
      <ol class="generation-items">
        {items.map((item) => (
          <ReviewItem key={item.id} item={item} onChange={onChange} />
        ))}
      </ol>
    </section>
  );
}

function ReviewItem({ item, onChange }: { item: GeneratedItem; onChange: () => void }) {
  const [editing, setEditing] = useState(false);
  const [text, setText] = useState(item.edited_text || item.text);
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);

  const decide = async (decision: "accept" | "reject" | "pending", edited?: string) => {
    setBusy(true);
    setError(null);
    try {
      await post(`/api/evaluation/generation-items/${item.id}/review/`, edited === undefined ? { decision } : { decision, text: edited });
      setEditing(false);
      onChange();
    } catch (e) {
      const messages = e instanceof ApiError ? fieldMessages(e.data) : [];
      setError(messages.join("; ") || String((e as Error).message ?? e));
    } finally {
      setBusy(false);
    }
  };

  const mean = itemMean(item.scores);
  return (
    <li class={`generation-item review-${item.review}`} data-testid="generation-item" data-review={item.review}>
      {editing ? (
        <textarea rows={3} value={text} onInput={(e) => setText((e.target as HTMLTextAreaElement).value)} data-testid="item-edit-text" aria-label="Edited sentence" />
      ) : (
        <p class="item-text" data-testid="item-text">
          {item.edited_text || item.text}
          {item.edited_text && <span class="muted small"> (edited; generated: “{item.text}”)</span>}
        </p>
      )}
      <p class="muted small">
        Judge {item.scores.map((s) => (s == null ? "?" : s)).join(", ")}
        {mean != null && ` (mean ${fixed(mean)})`}
        {item.facts.length > 0 && ` · facts: ${item.facts.join(". ")}.`}
        {" · "}
        <span data-testid="item-review">{item.review}</span>
        {item.reviewed_by && ` by ${item.reviewed_by}`}
      </p>
      <div class="form-actions">
        {editing ? (
          <>
            <button class="btn small primary" disabled={busy} onClick={() => void decide("accept", text)} data-testid="item-save-edit">
              Accept edited
            </button>
            <button class="btn small ghost" disabled={busy} onClick={() => setEditing(false)}>
              Cancel
            </button>
          </>
        ) : (
          <>
            <button class="btn small primary" disabled={busy} onClick={() => void decide("accept")} data-testid="item-accept">
              Accept
            </button>
            <button class="btn small" disabled={busy} onClick={() => setEditing(true)} data-testid="item-edit">
              Edit
            </button>
            <button class="btn small" disabled={busy} onClick={() => void decide("reject")} data-testid="item-reject">
              Reject
            </button>
            {item.review !== "pending" && (
              <button class="btn small ghost" disabled={busy} onClick={() => void decide("pending")} data-testid="item-undo">
                Undo
              </button>
            )}
          </>
        )}
      </div>
      {error && (
        <p class="form-error" role="alert">
          {error}
        </p>
      )}
    </li>
  );
}
