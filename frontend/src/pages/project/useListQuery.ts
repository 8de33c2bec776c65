import { useCallback, useEffect, useRef, useState } from "preact/hooks";
import { useLocationChange } from "../../router";
import { type ListQuery, DEFAULT_QUERY, parseQuery, toSearch } from "./query";

/**
 * The document list's state, kept in the URL query: a change pushes a history entry (a
 * search replaces it, so typing does not fill the history); back/forward restore it.
 * `fallback` is the order when the URL names none (it may arrive after the first render).
 */
export function useListQuery(fallback: string = DEFAULT_QUERY.ordering): [ListQuery, (next: ListQuery, opts?: { replace?: boolean }) => void] {
  const [query, setQuery] = useState(() => parseQuery(location.search, fallback));
  const order = useRef(fallback);
  useEffect(() => {
    if (order.current === fallback) return;
    order.current = fallback;
    setQuery(parseQuery(location.search, fallback));
  }, [fallback]);
  // Back/forward, and in-app links to the bare list (the Documents tab), restore the URL's state.
  useLocationChange(useCallback(() => setQuery(parseQuery(location.search, order.current)), []));
  const set = (next: ListQuery, opts: { replace?: boolean } = {}) => {
    const url = location.pathname + toSearch(next, order.current);
    if (url !== location.pathname + location.search) {
      if (opts.replace) history.replaceState(null, "", url);
      else history.pushState(null, "", url);
    }
    setQuery(next);
  };
  return [query, set];
}
