// The spans of the annotation on screen, their autosave queue and the undo stack.
// Editable: my own annotation, created on the server with the first saved change
// (SaveQueue.ensureAnnotation); otherwise (someone else's, or submitted) read-only.

import { useEffect, useRef, useState } from "preact/hooks";
import { ApiError, get, http, post } from "../../api";
import { SaveQueue } from "../../lib/autosave";
import { documentStorageKey } from "../../lib/autosaveStorage";
import type { SaveStatus } from "../../lib/saveStatus";
import { applyOps, newKey, type Op, type SpanFields } from "../../lib/spanOps";
import type { Annotation, DocumentAnnotation, ServerSpan } from "../../types";
import { fieldsOf, keyOf, type LocalSpan, makeLocal, sortSpans, storage, toLocal, type UndoEntry } from "./spans";
import { mergeServerSpan } from "./suggestions";
import type { ShowToast } from "./Toasts";

export interface EditorInput {
  docId: number;
  userId: number;
  /** The annotation shown (null: not started). */
  annotation: DocumentAnnotation | null;
  /** My own annotation (saved through the queue) rather than someone else's. */
  own: boolean;
  labelOrder: string[];
  toast: ShowToast;
}

export interface SubmitInfo {
  status: "in_progress" | "submitted" | null;
  submittedAt: string | null;
}

export function useAnnotationEditor({ docId, userId, annotation, own, labelOrder, toast }: EditorInput) {
  const initial = annotation?.spans.map((s) => toLocal(s, labelOrder)) ?? [];
  const [spans, setSpansState] = useState<LocalSpan[]>(() => sortSpans(initial));
  const [info, setInfo] = useState<SubmitInfo>({ status: annotation?.status ?? null, submittedAt: annotation?.submitted_at ?? null });
  const [readOnly, setReadOnly] = useState(!own || annotation?.status === "submitted");
  const [status, setStatus] = useState<SaveStatus>({ state: "saved" });
  const spansRef = useRef<LocalSpan[]>(spans);
  const undoRef = useRef<UndoEntry[]>([]);
  const queueRef = useRef<SaveQueue | null>(null);

  const setSpans = (next: LocalSpan[]) => {
    spansRef.current = next;
    setSpansState(next);
  };

  /** Reload my annotation from the server and re-apply what is still queued. */
  const resync = async () => {
    const q = queueRef.current;
    if (!q) return;
    try {
      const ann = await get<Annotation>(`/api/documents/${docId}/my-annotation/`);
      for (const s of ann.spans) q.setRef(keyOf(s), { id: s.id, revision: s.revision });
      setSpans(sortSpans(applyOps(ann.spans.map((s) => toLocal(s, labelOrder)), q.pendingOps(), makeLocal)));
    } catch (e) {
      if (e instanceof ApiError && e.status === 404) setSpans(sortSpans(applyOps([], q.pendingOps(), makeLocal)));
      /* else keep what is shown; the status says what is wrong */
    }
  };

  useEffect(() => {
    if (!own) return;
    const q = new SaveQueue({
      annotationId: annotation?.id ?? null,
      ensureAnnotation: () => post<Annotation>(`/api/documents/${docId}/my-annotation/`).then((a) => a.id),
      storageKey: documentStorageKey(docId, userId),
      http,
      store: storage(),
      refs: annotation?.spans.map((s) => [keyOf(s), { id: s.id, revision: s.revision }] as const) ?? [],
      isOnline: () => navigator.onLine !== false,
      onStatus: setStatus,
      onAnnotation: () => setInfo((i) => ({ ...i, status: i.status ?? "in_progress" })),
      onConflict: (key, current, op) => {
        if (op.kind !== "update") return;
        setSpans(sortSpans(spansRef.current.map((s) => (s.key === key ? { ...s, ...fieldsOf(current), ...op.fields } : s))));
        toast("This span was changed in another window; your edit was applied on top of it.", "warn");
      },
      onGone: (key) => {
        setSpans(spansRef.current.filter((s) => s.key !== key));
        toast("A span you edited had been deleted elsewhere; that edit was dropped.", "warn");
      },
      onRejected: (key, op: Op, message) => {
        if (op.kind === "create") setSpans(spansRef.current.filter((s) => s.key !== key));
        else void resync();
        toast(`Not saved: ${message}`, "error");
        if (/read-only|submitted/i.test(message)) setReadOnly(true);
      },
    });
    queueRef.current = q;
    const submitted = annotation?.status === "submitted";
    if (!submitted && q.pending()) {
      setSpans(sortSpans(applyOps(spansRef.current, q.pendingOps(), makeLocal)));
      toast(`Restored ${q.pending()} unsaved change(s) from this browser; saving them now.`);
      q.retryNow();
    }
    setStatus(q.status());
    const online = () => q.retryNow();
    window.addEventListener("online", online);
    return () => {
      window.removeEventListener("online", online);
      q.stop();
      queueRef.current = null;
    };
  }, []);

  useEffect(() => {
    if (status.state === "saved") return;
    const warn = (e: BeforeUnloadEvent) => {
      if (queueRef.current?.pending()) e.preventDefault();
    };
    window.addEventListener("beforeunload", warn);
    return () => window.removeEventListener("beforeunload", warn);
  }, [status.state]);

  const pushUndo = (e: UndoEntry) => {
    undoRef.current.push(e);
    if (undoRef.current.length > 200) undoRef.current.shift();
  };
  const enqueue = (op: Op, delay = 0) => queueRef.current?.enqueue(op, delay);

  const createSpan = (fields: SpanFields, undoable = true): string => {
    const key = newKey();
    setSpans(sortSpans([...spansRef.current, { key, ...fields }]));
    enqueue({ kind: "create", key, fields });
    if (undoable) pushUndo({ kind: "create", key });
    return key;
  };

  const updateSpan = (key: string, patch: Partial<SpanFields>, opts: { undo?: boolean; delay?: number } = {}) => {
    const cur = spansRef.current.find((s) => s.key === key);
    if (!cur) return;
    if (opts.undo !== false) pushUndo({ kind: "update", key, before: fieldsOf(cur) });
    setSpans(sortSpans(spansRef.current.map((s) => (s.key === key ? { ...s, ...patch } : s))));
    enqueue({ kind: "update", key, fields: patch }, opts.delay ?? 0);
  };

  const deleteSpan = (key: string, undoable = true) => {
    const cur = spansRef.current.find((s) => s.key === key);
    if (!cur) return;
    if (undoable) pushUndo({ kind: "delete", span: cur });
    setSpans(spansRef.current.filter((s) => s.key !== key));
    enqueue({ kind: "delete", key });
    if (undoable) toast("Span deleted. Ctrl+Z undoes.");
  };

  /**
   * Spans the server made for me (accepted suggestions): they join the page's spans with
   * the queue knowing their id and revision, so later edits PATCH them and nothing creates
   * them again. Already known ones are left as they are. Returns their keys. Undo deletes
   * an adopted span like one made here.
   */
  const adoptSpans = (made: ServerSpan[]): string[] => {
    const q = queueRef.current;
    let next = spansRef.current;
    const keys: string[] = [];
    for (const span of made) {
      const merged = mergeServerSpan(next, span, labelOrder);
      if (merged.added) {
        q?.setRef(merged.key, { id: span.id, revision: span.revision });
        pushUndo({ kind: "create", key: merged.key });
      }
      next = merged.spans;
      keys.push(merged.key);
    }
    setSpans(next);
    if (made.length) setInfo((i) => ({ ...i, status: i.status ?? "in_progress" }));
    return keys;
  };

  /** Undo the last change; returns the span to show, if any. */
  const undo = (): string | null => {
    if (readOnly) return null;
    const e = undoRef.current.pop();
    if (!e) {
      toast("Nothing to undo.");
      return null;
    }
    if (e.kind === "create") {
      deleteSpan(e.key, false);
      toast("Undone: span creation.");
      return null;
    }
    if (e.kind === "delete") {
      const key = createSpan(fieldsOf(e.span), false);
      for (const u of undoRef.current) {
        if ((u.kind === "create" || u.kind === "update") && u.key === e.span.key) u.key = key;
      }
      toast("Undone: span deletion.");
      return key;
    }
    const cur = spansRef.current.find((s) => s.key === e.key);
    if (!cur) return null;
    const patch: Partial<SpanFields> = {};
    for (const f of ["start", "end", "labels", "details"] as const) {
      if (JSON.stringify(cur[f]) !== JSON.stringify(e.before[f])) (patch as Record<string, unknown>)[f] = e.before[f];
    }
    updateSpan(e.key, patch, { undo: false });
    toast("Undone: edit.");
    return e.key;
  };

  /** Save what is queued, then submit (creating the annotation when nothing was changed). */
  const submit = async (): Promise<boolean> => {
    const q = queueRef.current;
    if (!q) return false;
    try {
      if (!(await q.flush())) {
        toast("Changes are not saved yet (see the status at the top); submit again once they are.", "error");
        return false;
      }
      const aid = await q.annotation();
      const res = await http("POST", `/api/annotations/${aid}/submit/`, {});
      if (res.status >= 200 && res.status < 300) {
        const ann = res.data as Annotation;
        setReadOnly(true);
        setInfo({ status: "submitted", submittedAt: ann.submitted_at });
        toast("Document submitted.");
        return true;
      }
      const body = res.data as { detail?: string; spans?: string[] } | null;
      toast(`Could not submit: ${body?.detail ?? body?.spans?.join("; ") ?? res.status}`, "error");
    } catch (e) {
      if (e instanceof ApiError) toast(`Could not submit: ${e.message}`, "error");
      else toast("Could not submit: the server cannot be reached. Your work is kept; try again.", "error");
    }
    return false;
  };

  return {
    spans,
    spansRef,
    status,
    readOnly,
    info,
    retry: () => queueRef.current?.retryNow(),
    pushUndo,
    createSpan,
    adoptSpans,
    resync,
    updateSpan,
    deleteSpan,
    undo,
    submit,
  };
}

export type Editor = ReturnType<typeof useAnnotationEditor>;
