import type { ComponentType } from "preact";
import { useEffect, useState } from "preact/hooks";

/**
 * A component whose code is imported on first render (a separate chunk of the build);
 * shows "Loading…" meanwhile, or the import's error with a reload button.
 */
export function lazyComponent<P extends object>(load: () => Promise<ComponentType<P>>): ComponentType<P> {
  let loaded: ComponentType<P> | null = null;
  let pending: Promise<ComponentType<P>> | null = null;
  return function Lazy(props: P) {
    const [C, setC] = useState<ComponentType<P> | null>(() => loaded);
    const [error, setError] = useState<string | null>(null);
    useEffect(() => {
      if (C) return;
      let live = true;
      pending ??= load().then((c) => (loaded = c));
      pending.then(
        (c) => live && setC(() => c),
        (e) => {
          pending = null;
          if (live) setError(String(e?.message ?? e));
        },
      );
      return () => {
        live = false;
      };
    }, []);
    if (C) return <C {...props} />;
    if (error)
      return (
        <div class="page narrow">
          <p class="form-error">This page could not be loaded: {error}</p>
          <button type="button" class="btn" onClick={() => location.reload()}>
            Reload
          </button>
        </div>
      );
    return <p class="boot">Loading…</p>;
  };
}
