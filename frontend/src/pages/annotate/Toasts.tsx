import { useCallback, useRef, useState } from "preact/hooks";

export interface Toast {
  id: number;
  text: string;
  kind: string;
}

export type ShowToast = (text: string, kind?: "info" | "warn" | "error") => void;

/** Short messages at the bottom of the page (errors stay a little longer). */
export function useToasts(): [Toast[], ShowToast] {
  const [toasts, setToasts] = useState<Toast[]>([]);
  const seq = useRef(0);
  const show = useCallback<ShowToast>((text, kind = "info") => {
    const tid = ++seq.current;
    setToasts((t) => [...t.slice(-3), { id: tid, text, kind }]);
    setTimeout(() => setToasts((t) => t.filter((x) => x.id !== tid)), kind === "error" ? 9000 : 4000);
  }, []);
  return [toasts, show];
}

export function Toasts({ toasts }: { toasts: Toast[] }) {
  return (
    <div class="toasts" role="status" aria-live="polite">
      {toasts.map((t) => (
        <div class={`toast ${t.kind}`} key={t.id}>
          {t.text}
        </div>
      ))}
    </div>
  );
}
