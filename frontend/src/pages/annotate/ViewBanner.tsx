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
