import type { ComponentChildren } from "preact";
import { linkHandler } from "../../router";

/** An empty state in the app's style: a sentence, and what to do next when there is something. */
export function EmptyState({ testId, children, action }: { testId: string; children: ComponentChildren; action?: { href: string; label: string } }) {
  return (
    <div class="empty" data-testid={testId}>
      <p>{children}</p>
      {action && (
        <a class="btn primary" href={action.href} onClick={linkHandler(action.href)}>
          {action.label}
        </a>
      )}
    </div>
  );
}
