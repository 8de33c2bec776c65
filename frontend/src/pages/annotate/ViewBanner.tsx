import type { ComponentChildren } from "preact";

const when = (iso: string | null | undefined) => (iso ? ` on ${new Date(iso).toLocaleString()}` : "");

/** What the page shows: my submitted annotation, or someone else's (read-only). */
export function ViewBanner({
  kind,
  username,
  submittedAt,
  status,
  children,
}: {
  kind: "submitted" | "review" | "none";
  username?: string;
  submittedAt?: string | null;
  status?: string | null;
  children?: ComponentChildren;
}) {
  let text: ComponentChildren;
  if (kind === "submitted") {
    text = (
      <>
        <strong>Submitted</strong>
        {when(submittedAt)} — this annotation is read-only.
      </>
    );
  } else if (kind === "none") {
    text = (
      <>
        <strong>Read-only</strong> — nobody has annotated this document yet.
      </>
    );
  } else {
    text = (
      <>
        <strong>Read-only</strong> — annotation by <strong data-testid="viewed-annotator">{username}</strong>
        {status === "submitted" ? `, submitted${when(submittedAt)}.` : ", in progress."}
      </>
    );
  }
  return (
    <div class={`banner${kind === "submitted" ? "" : " review"}`} role="status" data-testid="view-banner">
      <span>{text}</span>
      {children}
    </div>
  );
}

/**
 * The banner under the top bar: my submitted annotation (with "Next document" once I have
 * just submitted it), someone else's, or, with the annotator switch, my own.
 */
export function WorkspaceBanner({
  own,
  submitted,
  submittedAt,
  annotation,
  viewedName,
  switcher,
  onNext,
}: {
  own: boolean;
  /** My own annotation is submitted. */
  submitted: boolean;
  submittedAt?: string | null;
  /** The annotation shown (someone else's: null when not started). */
  annotation: { status: string; submitted_at: string | null } | null;
  viewedName?: string;
  switcher?: ComponentChildren;
  /** Set right after submitting: shows the "Next document" button. */
  onNext?: () => void;
}) {
  if (own && submitted) {
    return (
      <ViewBanner kind="submitted" submittedAt={submittedAt}>
        {switcher}
        {onNext && (
          <button type="button" class="btn primary small" onClick={onNext}>
            Next document →
          </button>
        )}
      </ViewBanner>
    );
  }
  if (!own) {
    return (
      <ViewBanner kind={annotation ? "review" : "none"} username={viewedName} status={annotation?.status} submittedAt={annotation?.submitted_at}>
        {switcher}
      </ViewBanner>
    );
  }
  if (!switcher) return null;
  return (
    <div class="banner mine" role="status">
      <strong>Your annotation</strong>
      {switcher}
    </div>
  );
}
