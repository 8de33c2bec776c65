import type { ComponentChildren } from "preact";
import { useLayoutEffect, useRef, useState } from "preact/hooks";

interface Edges {
  /** Content hidden to the left (scrolled away from the start). */
  left: boolean;
  /** Content hidden to the right. */
  right: boolean;
}

/** What of a scroller's content lies outside its box, to either side. */
export function hiddenEdges(el: { scrollLeft: number; scrollWidth: number; clientWidth: number }): Edges {
  const max = el.scrollWidth - el.clientWidth;
  return { left: max > 1 && el.scrollLeft > 1, right: max > 1 && el.scrollLeft < max - 1 };
}

/**
 * A wide table that scrolls sideways inside its box. While part of it is hidden a line above
 * it says so, with buttons that scroll, and shadows mark the side(s) where columns are hidden;
 * the scroller is then a focusable region (arrow keys scroll it). A table that fits shows
 * neither.
 */
export function ScrollX({ label, testId, children }: { label: string; testId?: string; children: ComponentChildren }) {
  const ref = useRef<HTMLDivElement>(null);
  const [edges, setEdges] = useState<Edges>({ left: false, right: false });
  useLayoutEffect(() => {
    const el = ref.current;
    if (!el) return;
    const update = () =>
      setEdges((old) => {
        const now = hiddenEdges(el);
        return now.left === old.left && now.right === old.right ? old : now;
      });
    update();
    el.addEventListener("scroll", update, { passive: true });
    const observer = new ResizeObserver(update);
    observer.observe(el);
    if (el.firstElementChild) observer.observe(el.firstElementChild);
    return () => {
      el.removeEventListener("scroll", update);
      observer.disconnect();
    };
  }, []);
  const overflow = edges.left || edges.right;
  const by = (sign: number) => ref.current?.scrollBy({ left: sign * ref.current.clientWidth * 0.8, behavior: "smooth" });
  return (
    <div class="scroll-x" data-testid={testId} data-overflow={String(overflow)} data-more-left={String(edges.left)} data-more-right={String(edges.right)}>
      {overflow && (
        <p class="scroll-hint" data-testid="scroll-hint">
          <span>Wider than the window: scroll sideways for {edges.right ? "the columns on the right" : "the first columns"}.</span>
          <button type="button" class="btn ghost small" onClick={() => by(-1)} disabled={!edges.left} aria-label="Scroll the table left">
            ←
          </button>
          <button type="button" class="btn ghost small" onClick={() => by(1)} disabled={!edges.right} aria-label="Scroll the table right">
            →
          </button>
        </p>
      )}
      <div class="scroll-x-frame">
        <div class="table-wrap" ref={ref} tabIndex={overflow ? 0 : undefined} role={overflow ? "region" : undefined} aria-label={overflow ? label : undefined}>
          {children}
        </div>
      </div>
    </div>
  );
}
