import type { ComponentChildren } from "preact";
import type { LoadError } from "../hooks/useResource";
import { linkHandler } from "../router";

/** "Page not found", then `children`, then a link back to the projects (or `back` instead). */
export function NotFoundMessage({ children, back }: { children?: ComponentChildren; back?: ComponentChildren }) {
  return (
    <div class="page-message" data-testid="not-found">
      <h1>Page not found</h1>
      {children}
      <p>
        {back ?? (
          <a href="/" onClick={linkHandler("/")}>
            Back to your projects
          </a>
        )}
      </p>
    </div>
  );
}

export function ForbiddenMessage({ children }: { children?: ComponentChildren }) {
  return (
    <div class="page-message" data-testid="forbidden">
      <h1>Not allowed</h1>
      {children ?? <p>Your role in this project does not give access to this page.</p>}
      <p>
        <a href="/" onClick={linkHandler("/")}>
          Back to your projects
        </a>
      </p>
    </div>
  );
}

/** What a page shows when its main resource failed: not found, forbidden, or the error. */
export function LoadErrorMessage({ error, onRetry }: { error: LoadError; onRetry?: () => void }) {
  if (error.status === 404) return <NotFoundMessage />;
  if (error.status === 403) return <ForbiddenMessage />;
  return (
    <div class="page-message">
      <p class="form-error" role="alert">
        {error.message}
      </p>
      {onRetry && (
        <button type="button" class="btn" onClick={onRetry}>
          Try again
        </button>
      )}
    </div>
  );
}
