// The banners of an item page: a conflict (changed elsewhere), and what is shown (my submitted
// response, someone else's, an archived project, or my own with the annotator switch).

import type { ComponentChildren } from "preact";
import type { ItemAnnotation } from "../../types";

export function ConflictBanner({ onLoadCurrent }: { onLoadCurrent: () => void }) {
  return (
    <div class="banner item-conflict" role="alert" data-testid="item-conflict">
      <span>
        <strong>This response was changed elsewhere</strong> (in another tab, or by a reviewer). Your latest changes were not saved.
      </span>
      <button type="button" class="btn small primary" data-testid="item-load-current" onClick={onLoadCurrent}>
        Load the current version
      </button>
    </div>
  );
}

export interface ItemBannerProps {
  /** My own response rather than someone else's. */
  own: boolean;
  /** The response shown (null: nobody has started the item). */
  annotation: ItemAnnotation | null;
  archived?: boolean;
  /** Reviewers and admins: a submitted response can be reopened. */
  staff: boolean;
  switcher?: ComponentChildren;
  onReopen: () => void;
  /** Set right after submitting my own: shows the "Next item" button. */
  onNext?: () => void;
}

export function ItemBanner({ own, annotation, archived, staff, switcher, onReopen, onNext }: ItemBannerProps) {
  if (annotation?.status === "submitted") {
    return (
      <div class="banner" role="status" data-testid="view-banner">
        <span>
          <strong>Submitted</strong>
          {annotation.submitted_at ? ` on ${new Date(annotation.submitted_at).toLocaleString()}` : ""}
          {own ? " — this response is read-only." : ` — response by ${annotation.annotator.username}.`}
        </span>
        {switcher}
        {staff && (
          <button type="button" class="btn small" data-testid="item-reopen" onClick={onReopen}>
            Reopen
          </button>
        )}
        {own && onNext && (
          <button type="button" class="btn primary small" onClick={onNext}>
            Next item →
          </button>
        )}
      </div>
    );
  }
  if (!own) {
    return (
      <div class="banner review" role="status" data-testid="view-banner">
        <span>
          <strong>Read-only</strong> —{" "}
          {annotation ? (
            <>
              response by <strong data-testid="viewed-annotator">{annotation.annotator.username}</strong>, in progress.
            </>
          ) : (
            "nobody has answered this item yet."
          )}
        </span>
        {switcher}
      </div>
    );
  }
  if (archived) {
    return (
      <div class="banner review" role="status">
        <strong>Archived project</strong> — read-only.
      </div>
    );
  }
  if (!switcher) return null;
  return (
    <div class="banner mine" role="status">
      <strong>Your response</strong>
      {switcher}
    </div>
  );
}
