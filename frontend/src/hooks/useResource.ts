// Loading one REST resource into a page, and polling it while it changes.

import { useCallback, useEffect, useRef, useState } from "preact/hooks";
import { ApiError, get } from "../api";

export interface LoadError {
  /** The HTTP status, or null when the server could not be reached. */
  status: number | null;
  message: string;
}

export function toLoadError(e: unknown): LoadError {
  if (e instanceof ApiError) return { status: e.status, message: e.message };
  const message = e instanceof Error && e.name === "AbortError" ? "The server did not answer in time." : String((e as Error)?.message ?? e);
  return { status: null, message };
}

export interface Resource<T> {
  data: T | null;
  error: LoadError | null;
  loading: boolean;
  /** Fetch again; resolves once the answer is in (errors are kept in `error`). */
  reload: () => Promise<void>;
  setData: (data: T) => void;
}

/** GET `url` (null: nothing to load); a newer url or reload wins over older answers. */
export function useResource<T>(url: string | null): Resource<T> {
  const [data, setData] = useState<T | null>(null);
  const [error, setError] = useState<LoadError | null>(null);
  const [loading, setLoading] = useState(url !== null);
  const seq = useRef(0);
  const current = useRef(url);
  current.current = url;

  const reload = useCallback(async () => {
    const u = current.current;
    if (u === null) return;
    const mine = ++seq.current;
    setLoading(true);
    try {
      const d = await get<T>(u);
      if (mine !== seq.current) return;
      setData(d);
      setError(null);
    } catch (e) {
      if (mine !== seq.current) return;
      setError(toLoadError(e));
    } finally {
      if (mine === seq.current) setLoading(false);
    }
  }, []);

  useEffect(() => {
    void reload();
  }, [url]);

  return { data, error, loading, reload, setData };
}

/**
 * Call `tick` every `ms` while `active`, waiting for each call to finish before the next
 * wait (a slow server never gets overlapping polls). Stops on unmount or when inactive.
 */
export function usePoll(active: boolean, tick: () => Promise<unknown>, ms: number): void {
  const tickRef = useRef(tick);
  tickRef.current = tick;
  useEffect(() => {
    if (!active) return;
    let stopped = false;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const loop = () => {
      timer = setTimeout(async () => {
        try {
          await tickRef.current();
        } catch {
          // the resource keeps its own error; keep polling
        }
        if (!stopped) loop();
      }, ms);
    };
    loop();
    return () => {
      stopped = true;
      clearTimeout(timer);
    };
  }, [active, ms]);
}
