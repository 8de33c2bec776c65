// The adjudication page's keyboard help, conflict banner and save message.

import { linkHandler, paths } from "../../../router";
import type { Rebased } from "./state";
import type { GoldState } from "../../../types";

export const SHORTCUTS: [string, string][] = [
  ["j / k, ↓ / ↑", "next / previous proposal"],
  ["a", "accept the proposal (or the picked annotators' spans)"],
  ["m", "merge the picked annotators' spans into one gold span"],
  ["Esc", "unpick the annotators' spans"],
  ["n", "add / remove ⊥ on the selected gold span"],
  ["< / ,", "selected gold span: start one sentence earlier / later"],
  ["> / .", "selected gold span: end one sentence later / earlier"],
  ["Delete", "delete the selected gold span"],
  ["[ / ]", "previous / next document of the queue (asks first if not saved)"],
  ["Ctrl+S", "save"],
  ["?", "this help"],
];

export function ShortcutList() {
  return (
    <dl class="adj-help" data-testid="shortcuts">
      {SHORTCUTS.map(([k, v]) => (
        <div key={k}>
          <dt>
            <kbd>{k}</kbd>
          </dt>
          <dd>{v}</dd>
        </div>
      ))}
    </dl>
  );
}

/** Someone else saved since this page loaded: their state, and what re-applying would do. */
export function ConflictBanner(p: { current: GoldState; plan: Rebased; onReapply(): void; onDiscard(): void }) {
  const { current, plan } = p;
  return (
    <div class="adj-conflict" role="alert" data-testid="conflict">
      <p>
        <b>Someone else saved this document (revision {current.revision}).</b> Your changes are kept on this page and are not saved yet.
      </p>
      <p>
        Their version has {current.spans.length} span(s):{" "}
        <span data-testid="conflict-theirs">{current.spans.map((s) => s.labels.join(" | ")).join("; ") || "none"}</span>.
      </p>
      <p data-testid="conflict-plan">
        Re-applying keeps their spans and applies your {plan.mine} changed range(s) on top
        {plan.both ? `; ${plan.both} range(s) were changed by both of you: yours replace theirs there` : ""}.
      </p>
      <button type="button" class="btn primary" onClick={p.onReapply} data-testid="reapply">
        Re-apply my changes on top
      </button>{" "}
      <button type="button" class="btn" onClick={p.onDiscard} data-testid="discard-mine">
        Discard mine, load theirs
      </button>
    </div>
  );
}

export function SaveMessage(p: { message: string; projectId: number; next: number | null | undefined }) {
  const ok = p.message === "Saved.";
  const queue = paths.adjudicationQueue(p.projectId);
  return (
    <p class={ok ? "muted" : "form-error"} role="status" data-testid="save-message">
      {p.message}{" "}
      {ok && (
        <>
          <a href={queue} onClick={linkHandler(queue)}>
            Back to the queue
          </a>
          {p.next != null && (
            <>
              {" · "}
              <a href={paths.adjudicate(p.projectId, p.next)} onClick={linkHandler(paths.adjudicate(p.projectId, p.next))} data-testid="next-document">
                Next document →
              </a>
            </>
          )}
          {p.next === null && " · no other document in the queue"}
        </>
      )}
    </p>
  );
}
