import { Fragment } from "preact";
import { linkHandler } from "../router";

export interface Crumb {
  label: string;
  href?: string;
}

/** The breadcrumb of the top bar: Projects › … › the current page. */
export function Crumbs({ items }: { items: Crumb[] }) {
  const all: Crumb[] = [{ label: "Projects", href: "/" }, ...items];
  return (
    <nav class="crumbs" aria-label="Breadcrumb">
      {all.map((c, i) => (
        <Fragment key={i}>
          {i > 0 && <span aria-hidden="true">›</span>}
          {c.href && i < all.length - 1 ? (
            <a href={c.href} onClick={linkHandler(c.href)}>
              {c.label}
            </a>
          ) : (
            <span class={i === all.length - 1 ? "doc-title" : undefined} aria-current={i === all.length - 1 ? "page" : undefined}>
              {c.label}
            </span>
          )}
        </Fragment>
      ))}
    </nav>
  );
}
