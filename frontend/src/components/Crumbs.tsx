import { Fragment } from "preact";
import { linkHandler } from "../router";

export interface Crumb {
  label: string;
  href?: string;
}

/** Which crumbs collapse into "…" on a narrow top bar: all but the parent and the current page. */
export function collapsedCrumbs(count: number): boolean[] {
  return Array.from({ length: count }, (_, i) => count > 2 && i < count - 2);
}

/**
 * The breadcrumb of the top bar: Projects › … › the current page. On a narrow top bar the
 * crumbs before the parent collapse into "…" (their path as its title; the parent and the
 * current page stay), and long names shorten with an ellipsis (the full name as the title).
 */
export function Crumbs({ items }: { items: Crumb[] }) {
  const all: Crumb[] = [{ label: "Projects", href: "/" }, ...items];
  const collapsed = collapsedCrumbs(all.length);
  const hidden = all.filter((_, i) => collapsed[i]);
  return (
    <nav class="crumbs" aria-label="Breadcrumb" data-testid="crumbs">
      {hidden.length > 0 && (
        <span class="crumb-more" title={hidden.map((c) => c.label).join(" › ")}>
          … <span aria-hidden="true">›</span>
        </span>
      )}
      {all.map((c, i) => (
        <Fragment key={i}>
          {i > 0 && (
            <span class={collapsed[i - 1] ? "crumb-sep crumb-mid" : "crumb-sep"} aria-hidden="true">
              ›
            </span>
          )}
          {c.href && i < all.length - 1 ? (
            <a href={c.href} onClick={linkHandler(c.href)} class={collapsed[i] ? "crumb crumb-mid" : "crumb"} title={c.label}>
              {c.label}
            </a>
          ) : (
            <span
              class={i === all.length - 1 ? "crumb doc-title" : collapsed[i] ? "crumb crumb-mid" : "crumb"}
              title={c.label}
              aria-current={i === all.length - 1 ? "page" : undefined}
            >
              {c.label}
            </span>
          )}
        </Fragment>
      ))}
    </nav>
  );
}
