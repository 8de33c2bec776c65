import { useLayoutEffect, useRef } from "preact/hooks";

/** Once `done` turns true (the page's content is rendered), sets `<html data-ready={name}>`
 *  and the `app-ready` performance mark in the next frame; bench/results_pages.py times it.
 *  The attribute goes away when the page unmounts. */
export function usePageReady(name: string, done: boolean) {
  const marked = useRef(false);
  const frame = useRef(0);
  useLayoutEffect(() => {
    if (marked.current || !done) return;
    marked.current = true;
    frame.current = requestAnimationFrame(() => {
      document.documentElement.setAttribute("data-ready", name);
      performance.mark("app-ready");
    });
  }, [done]);
  useLayoutEffect(
    () => () => {
      cancelAnimationFrame(frame.current);
      document.documentElement.removeAttribute("data-ready");
    },
    [],
  );
}
