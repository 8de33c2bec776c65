import { useCallback, useState } from "preact/hooks";
import { useLocationChange } from "../../router";
import { type ListQuery, parseQuery, toSearch } from "./query";

/**
 * The document list's state, kept in the URL query: a change pushes a history entry (a
 * search replaces it, so typing does not fill the history); back/forward restore it.
 */
export function useListQuery(): [ListQuery, (next: ListQuery, opts?: { replace?: boolean }) => void] {
  const [query, setQuery] = useState(() => parseQuery(location.search));
  // Back/forward, and in-app links to the bare list (the Documents tab), restore the URL's state.
  useLocationChange(useCallback(() => setQuery(parseQuery(location.search)), []));
  const set = (next: ListQuery, opts: { replace?: boolean } = {}) => {
    const url = location.pathname + toSearch(next);
    if (url !== location.pathname + location.search) {
      if (opts.replace) history.replaceState(null, "", url);
      else history.pushState(null, "", url);
    }
    setQuery(next);
  };
  return [query, set];
}
