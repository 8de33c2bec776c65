// Small hooks of the document page: the guidelines panel's remembered state, the ready mark
// the benchmarks and browser tests wait for, moving focus into the span editor, and the
// window-wide keys (undo, guidelines).

import type { RefObject } from "preact";
import { useEffect, useLayoutEffect, useRef, useState } from "preact/hooks";
import { isTyping, storage } from "./spans";

const GUIDE_PREF = "fallacy.guidelines.open";

/** The guidelines panel: open as last left (new annotators on a wide screen: open). */
export function useGuidelinesPanel(): [boolean, () => void] {
  const [showGuide, setShowGuide] = useState(() => {
    const pref = storage()?.getItem(GUIDE_PREF);
    return pref ? pref === "1" : window.innerWidth >= 1200; // new annotators see the guidelines
  });
  const toggleGuide = () =>
    setShowGuide((v) => {
      storage()?.setItem(GUIDE_PREF, v ? "0" : "1");
      return !v;
    });
  return [showGuide, toggleGuide];
}

/** Ready: rendered and listening to the keyboard (the document pane has the focus). */
export function useReadyMark(docRef: RefObject<HTMLDivElement>) {
  useLayoutEffect(() => {
    docRef.current?.focus({ preventScroll: true });
    requestAnimationFrame(() => {
      document.documentElement.setAttribute("data-ready", "annotate");
      performance.mark("app-ready"); // read by bench/page_load.py
    });
    return () => document.documentElement.removeAttribute("data-ready");
  }, []);
}

/**
 * Returns `focusEditor`: the span editor's first field gets the focus in a layout effect,
 * i.e. right after the render and before the next key event, so fast typing never lands
 * in the wrong place.
 */
export function useEditorFocus(): () => void {
  const pendingFocus = useRef<"editor" | null>(null);
  useLayoutEffect(() => {
    if (pendingFocus.current === "editor") {
      const el = document.querySelector(".editor input[data-slot], .editor textarea") as HTMLElement | null;
      if (el) {
        pendingFocus.current = null;
        el.focus();
      }
    }
  });
  return () => {
    pendingFocus.current = "editor";
  };
}

/** Ctrl+Z anywhere outside text fields (they keep their own undo); G on the page body. */
export function useWindowKeys(undo: () => void, toggleGuide: () => void) {
  useEffect(() => {
    const onKey = (e: KeyboardEvent) => {
      if ((e.ctrlKey || e.metaKey) && !e.shiftKey && e.key.toLowerCase() === "z" && !isTyping(e.target)) {
        e.preventDefault();
        undo();
      } else if (!isTyping(e.target) && e.target === document.body && e.key === "g") {
        toggleGuide();
      }
    };
    window.addEventListener("keydown", onKey);
    return () => window.removeEventListener("keydown", onKey);
  });
}
