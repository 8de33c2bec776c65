import { useCallback, useEffect, useLayoutEffect, useMemo, useRef, useState } from "preact/hooks";
import { get, http, post } from "../api";
import { DocumentText, type ShownSpan } from "../components/DocumentText";
import { GuidelinesPanel } from "../components/Guidelines";
import { type ConfirmMode, LabelPicker } from "../components/LabelPicker";
import { SaveStatusBadge } from "../components/SaveStatus";
import { SpanEditor } from "../components/SpanEditor";
import { TopBar } from "../components/TopBar";
import { applyOps, newKey, type Op, SaveQueue, type SaveStatus, type SpanFields } from "../lib/autosave";
import { categoryColor } from "../lib/colors";
import { flattenTaxonomy, type LabelOption, sortLabels, toggleLabel } from "../lib/labels";
import { layoutLanes } from "../lib/layout";
import * as S from "../lib/selection";
import { takeDocument } from "../prefetch";
import { linkHandler, navigate } from "../router";
import type { Annotation, DocumentDetail, LabelDetail, Me, Project, ServerSpan } from "../types";
import { NO_FALLACY } from "../types";

interface LocalSpan extends SpanFields {
  key: string;
}

type UndoEntry =
  | { kind: "create"; key: string }
  | { kind: "delete"; span: LocalSpan }
  | { kind: "update"; key: string; before: SpanFields };

type PickerState = null | { mode: "create"; first: number; last: number } | { mode: "edit"; key: string };

interface Loaded {
  doc: DocumentDetail;
  project: Project;
  annotation: Annotation;
}

const keyOf = (s: ServerSpan) => s.client_id ?? `srv-${s.id}`;
/** The server keeps labels sorted by name; show them in taxonomy order, "no fallacy" last. */
const toLocal = (s: ServerSpan, order: string[]): LocalSpan => ({
  key: keyOf(s),
  start: s.start,
  end: s.end,
  labels: sortLabels(s.labels, order),
  details: s.details ?? {},
});
const fieldsOf = (s: SpanFields): SpanFields => ({
  start: s.start,
  end: s.end,
  labels: s.labels,
  details: s.details,
});
const sortSpans = (spans: LocalSpan[]) =>
  [...spans].sort((a, b) => a.start - b.start || b.end - a.end || (a.key < b.key ? -1 : 1));

function storage(): Storage | null {
  try {
    return window.localStorage;
  } catch {
    return null;
  }
}

const isTyping = (t: EventTarget | null) =>
  t instanceof HTMLElement && (t.isContentEditable || ["INPUT", "TEXTAREA", "SELECT"].includes(t.tagName));

const GUIDE_PREF = "fallacy.guidelines.open";

export function AnnotatePage({ me, id }: { me: Me; id: number }) {
  const [data, setData] = useState<Loaded | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [spans, setSpansState] = useState<LocalSpan[]>([]);
  const [readOnly, setReadOnly] = useState(false);
  const [sel, setSel] = useState<S.Selection | null>(null);
  const [activeKey, setActiveKey] = useState<string | null>(null);
  const [picker, setPicker] = useState<PickerState>(null);
  const [status, setStatus] = useState<SaveStatus>({ state: "saved" });
  const [toasts, setToasts] = useState<{ id: number; text: string; kind: string }[]>([]);
  const [showGuide, setShowGuide] = useState(() => {
    const pref = storage()?.getItem(GUIDE_PREF);
    return pref ? pref === "1" : window.innerWidth >= 1200; // new annotators see the guidelines
  });
  const [focusLabel, setFocusLabel] = useState<LabelOption | null>(null);
  const [submitting, setSubmitting] = useState(false);
  const [afterSubmit, setAfterSubmit] = useState<string | null>(null);

  const queueRef = useRef<SaveQueue | null>(null);
  const undoRef = useRef<UndoEntry[]>([]);
  const spansRef = useRef<LocalSpan[]>([]);
  const docRef = useRef<HTMLDivElement>(null);
  const dialogRef = useRef<HTMLDialogElement>(null);
  const editSnapshot = useRef<{ key: string; before: SpanFields } | null>(null);
  const toastId = useRef(0);
  const orderRef = useRef<string[]>([]);

  const setSpans = (next: LocalSpan[]) => {
    spansRef.current = next;
    setSpansState(next);
  };

  const toast = useCallback((text: string, kind = "info") => {
    const tid = ++toastId.current;
    setToasts((t) => [...t.slice(-3), { id: tid, text, kind }]);
    setTimeout(() => setToasts((t) => t.filter((x) => x.id !== tid)), kind === "error" ? 9000 : 4000);
  }, []);

  const resync = useCallback(async () => {
    const q = queueRef.current;
    if (!q) return;
    try {
      const ann = await post<Annotation>(`/api/documents/${id}/my-annotation/`);
      for (const s of ann.spans) q.setRef(keyOf(s), { id: s.id, revision: s.revision });
      const order = orderRef.current;
      setSpans(sortSpans(applyOps(ann.spans.map((s) => toLocal(s, order)), q.pendingOps(), (key, f) => ({ key, ...f }))));
    } catch {
      /* keep what is shown; the status says what is wrong */
    }
  }, [id]);

  // ---- loading ------------------------------------------------------------------------
  useEffect(() => {
    let cancelled = false;
    (async () => {
      try {
        const bundle = takeDocument(id);
        const [doc, annotation, project] = await Promise.all([bundle.doc, bundle.annotation, bundle.project]);
        performance.mark("app-data"); // read by bench/page_load.py
        if (cancelled) return;
        const q = new SaveQueue({
          annotationId: annotation.id,
          http,
          store: storage(),
          refs: annotation.spans.map((s) => [keyOf(s), { id: s.id, revision: s.revision }] as const),
          isOnline: () => navigator.onLine !== false,
          onStatus: setStatus,
          onConflict: (key, current, op) => {
            if (op.kind !== "update") return;
            const merged = spansRef.current.map((s) =>
              s.key === key ? { ...s, ...fieldsOf(current), ...op.fields } : s,
            );
            setSpans(sortSpans(merged));
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
        orderRef.current = flattenTaxonomy(project.taxonomy).map((o) => o.name);
        const server = annotation.spans.map((s) => toLocal(s, orderRef.current));
        const submitted = annotation.status === "submitted";
        const shown = submitted ? server : applyOps(server, q.pendingOps(), (key, f) => ({ key, ...f }));
        setSpans(sortSpans(shown));
        setReadOnly(submitted);
        setData({ doc, project, annotation });
        if (!submitted && q.pending()) {
          toast(`Restored ${q.pending()} unsaved change(s) from this browser; saving them now.`);
          q.retryNow();
        }
        setStatus(q.status());
      } catch (e) {
        if (!cancelled) setError((e as Error).message || "Could not load the document.");
      }
    })();
    const online = () => queueRef.current?.retryNow();
    window.addEventListener("online", online);
    return () => {
      cancelled = true;
      window.removeEventListener("online", online);
      queueRef.current?.stop();
      document.documentElement.removeAttribute("data-ready");
    };
  }, [id]);

  // Ready: rendered and listening to the keyboard.
  useLayoutEffect(() => {
    if (!data) return;
    docRef.current?.focus({ preventScroll: true });
    requestAnimationFrame(() => {
      document.documentElement.setAttribute("data-ready", "annotate");
      performance.mark("app-ready"); // read by bench/page_load.py
    });
  }, [data]);

  useEffect(() => {
    if (status.state === "saved") return;
    const warn = (e: BeforeUnloadEvent) => {
      if (queueRef.current?.pending()) e.preventDefault();
    };
    window.addEventListener("beforeunload", warn);
    return () => window.removeEventListener("beforeunload", warn);
  }, [status.state]);

  // ---- derived ------------------------------------------------------------------------
  const options = useMemo(() => (data ? flattenTaxonomy(data.project.taxonomy) : []), [data]);
  const optionByName = useMemo(() => new Map(options.map((o) => [o.name, o])), [options]);
  const labelOrder = useMemo(() => options.map((o) => o.name), [options]);
  const sentences = data?.doc.sentences ?? [];
  const count = sentences.length;

  const shown: ShownSpan[] = useMemo(() => {
    const out: ShownSpan[] = [];
    for (const s of spans) {
      const r = S.fromChars(s.start, s.end, sentences);
      if (!r) continue;
      const real = s.labels.filter((l) => l !== NO_FALLACY);
      const optional = s.labels.includes(NO_FALLACY);
      const cat = optionByName.get(real[0])?.categoryIndex;
      out.push({
        key: s.key,
        first: r[0],
        last: r[1],
        color: categoryColor(cat),
        optional,
        title: s.labels.join(" | "),
        short: `${real[0] ?? "?"}${real.length > 1 ? ` +${real.length - 1}` : ""}${optional ? " / ⊥" : ""}`,
      });
    }
    return out;
  }, [spans, sentences, optionByName]);
  const shownByKey = useMemo(() => new Map(shown.map((s) => [s.key, s])), [shown]);
  const layout = useMemo(() => layoutLanes(shown), [shown]);
  const active = activeKey ? spans.find((s) => s.key === activeKey) : undefined;
  const activeShown = activeKey ? shownByKey.get(activeKey) : undefined;

  useEffect(() => {
    if (activeKey && !active) setActiveKey(null);
  }, [activeKey, active]);

  useEffect(() => {
    if (sel) document.getElementById(`sent-${sel.focus}`)?.scrollIntoView({ block: "nearest" });
  }, [sel?.focus]);

  useEffect(() => {
    const o = active ? optionByName.get(active.labels.find((l) => l !== NO_FALLACY) ?? "") : undefined;
    if (o) setFocusLabel(o);
  }, [activeKey]);

  // ---- changes (each one: local state, autosave queue, undo stack) -----------------------
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
    if (activeKey === key) setActiveKey(null);
    if (undoable) toast("Span deleted. Ctrl+Z undoes.");
  };

  const undo = () => {
    if (readOnly) return;
    const e = undoRef.current.pop();
    if (!e) {
      toast("Nothing to undo.");
      return;
    }
    if (e.kind === "create") {
      deleteSpan(e.key, false);
      toast("Undone: span creation.");
    } else if (e.kind === "delete") {
      const key = createSpan(fieldsOf(e.span), false);
      for (const u of undoRef.current) {
        if (u.kind === "create" && u.key === e.span.key) u.key = key;
        if (u.kind === "update" && u.key === e.span.key) u.key = key;
      }
      setActiveKey(key);
      toast("Undone: span deletion.");
    } else {
      const cur = spansRef.current.find((s) => s.key === e.key);
      if (!cur) return;
      const patch: Partial<SpanFields> = {};
      for (const f of ["start", "end", "labels", "details"] as const) {
        if (JSON.stringify(cur[f]) !== JSON.stringify(e.before[f])) (patch as Record<string, unknown>)[f] = e.before[f];
      }
      updateSpan(e.key, patch, { undo: false });
      setActiveKey(e.key);
      toast("Undone: edit.");
    }
  };

  const focusDoc = () => docRef.current?.focus({ preventScroll: true });
  // Focus moves in a layout effect, i.e. right after the render and before the next key
  // event, so fast typing never lands in the wrong place.
  const pendingFocus = useRef<"editor" | null>(null);
  const focusEditor = () => {
    pendingFocus.current = "editor";
  };
  useLayoutEffect(() => {
    if (pendingFocus.current === "editor") {
      const el = document.querySelector(".editor input[data-slot], .editor textarea") as HTMLElement | null;
      if (el) {
        pendingFocus.current = null;
        el.focus();
      }
    }
  });

  const sameRange = (first: number, last: number, exceptKey?: string) =>
    shown.find((s) => s.first === first && s.last === last && s.key !== exceptKey);

  const openPicker = () => {
    if (readOnly || !sel) return;
    const [first, last] = S.range(sel);
    setActiveKey(null);
    setPicker({ mode: "create", first, last });
  };

  const onPickerConfirm = (labels: string[], mode: ConfirmMode) => {
    if (!picker) return;
    if (picker.mode === "edit") {
      const cur = spansRef.current.find((s) => s.key === picker.key);
      if (cur) {
        const details = Object.fromEntries(Object.entries(cur.details).filter(([l]) => labels.includes(l)));
        updateSpan(cur.key, { labels, details });
      }
      setPicker(null);
      focusEditor();
      return;
    }
    const { first, last } = picker;
    const existing = sameRange(first, last);
    let key: string;
    if (mode === "merge" && existing) {
      const cur = spansRef.current.find((s) => s.key === existing.key)!;
      key = cur.key;
      updateSpan(key, { labels: sortLabels([...new Set([...cur.labels, ...labels])], labelOrder) });
    } else {
      key = createSpan({
        start: sentences[first].start,
        end: sentences[last].end,
        labels: sortLabels(labels, labelOrder),
        details: {},
      });
    }
    setPicker(null);
    setActiveKey(key);
    focusEditor();
  };

  const activate = (key: string, selectRange = true) => {
    setPicker(null);
    setActiveKey(key);
    const s = shownByKey.get(key);
    if (s && selectRange) setSel({ anchor: s.last, focus: s.first });
  };

  const cycleSpanAtFocus = () => {
    if (!sel) return;
    const here = layout.bySentence.get(sel.focus) ?? [];
    if (!here.length) {
      toast("No span covers this sentence.");
      return;
    }
    const idx = here.findIndex((h) => h.key === activeKey);
    setPicker(null);
    setActiveKey(here[(idx + 1) % here.length].key);
  };

  const moveActive = () => {
    if (!active || !sel || readOnly) return;
    const { start, end } = S.toChars(sel, sentences);
    if (start === active.start && end === active.end) return;
    updateSpan(active.key, { start, end });
    toast("Span moved to the selected sentences.");
  };

  const onDocKey = (e: KeyboardEvent) => {
    if (e.ctrlKey || e.metaKey || e.altKey) return;
    const k = e.key;
    const handled = () => e.preventDefault();
    if (k === "ArrowDown" || k === "ArrowRight" || (k === "j" && !e.shiftKey)) {
      handled();
      setSel((s) => S.move(s, 1, e.shiftKey, count));
    } else if (k === "ArrowUp" || k === "ArrowLeft" || (k === "k" && !e.shiftKey)) {
      handled();
      setSel((s) => S.move(s, -1, e.shiftKey, count));
    } else if (k === "Home") {
      handled();
      setSel((s) => S.jump(s, 0, e.shiftKey, count));
    } else if (k === "End") {
      handled();
      setSel((s) => S.jump(s, count - 1, e.shiftKey, count));
    } else if (k === "Enter" || k === "a") {
      handled();
      if (!sel) setSel(S.move(null, 1, false, count));
      else openPicker();
    } else if (k === "e") {
      handled();
      cycleSpanAtFocus();
    } else if ((k === "l" || k === "L") && active && !readOnly) {
      handled();
      setPicker({ mode: "edit", key: active.key });
    } else if (k === "m" && active) {
      handled();
      moveActive();
    } else if (k === "Delete" && active && !readOnly && !picker) {
      handled();
      deleteSpan(active.key);
    } else if (k === "Escape") {
      handled();
      if (picker) setPicker(null);
      else if (activeKey) setActiveKey(null);
      else setSel(null);
    } else if (k === "g" || k === "?") {
      handled();
      toggleGuide();
    }
  };

  const toggleGuide = () =>
    setShowGuide((v) => {
      storage()?.setItem(GUIDE_PREF, v ? "0" : "1");
      return !v;
    });

  // Ctrl+Z anywhere outside text fields (they keep their own undo).
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

  // ---- submit ---------------------------------------------------------------------------
  const submit = async () => {
    const q = queueRef.current;
    if (!q || !data) return;
    setSubmitting(true);
    try {
      const saved = await q.flush();
      if (!saved) {
        toast("Changes are not saved yet (see the status at the top); submit again once they are.", "error");
        return;
      }
      const res = await http("POST", `/api/annotations/${data.annotation.id}/submit/`, {});
      if (res.status >= 200 && res.status < 300) {
        dialogRef.current?.close();
        setReadOnly(true);
        setPicker(null);
        setData({ ...data, annotation: res.data as Annotation });
        setAfterSubmit("Submitted. Thank you!");
        toast("Document submitted.");
      } else {
        toast(`Could not submit: ${(res.data as { detail?: string })?.detail ?? res.status}`, "error");
      }
    } catch {
      toast("Could not submit: the server cannot be reached. Your work is kept; try again.", "error");
    } finally {
      setSubmitting(false);
    }
  };

  const nextDocument = async () => {
    if (!data) return;
    const { document: next } = await get<{ document: number | null }>(`/api/projects/${data.project.id}/next-document/`);
    if (next && next !== id) navigate(`/documents/${next}/`);
    else {
      toast("No more documents to annotate in this project.");
      navigate(`/projects/${data.project.id}/`);
    }
  };

  // ---- render ---------------------------------------------------------------------------
  if (error) {
    return (
      <>
        <TopBar me={me} />
        <main class="page narrow">
          <h1>Cannot open this document</h1>
          <p class="form-error">{error}</p>
          <a class="btn" href="/" onClick={linkHandler("/")}>
            Back to projects
          </a>
        </main>
      </>
    );
  }
  if (!data) {
    return (
      <>
        <TopBar me={me} />
        <p class="boot">Loading document…</p>
      </>
    );
  }

  const { doc, project } = data;
  const selRange = sel ? S.range(sel) : null;
  const selText = selRange
    ? selRange[0] === selRange[1]
      ? `Sentence ${selRange[0] + 1}`
      : `Sentences ${selRange[0] + 1}–${selRange[1] + 1}`
    : "";
  const spansHere = sel ? (layout.bySentence.get(sel.focus) ?? []).map((h) => shownByKey.get(h.key)!).filter(Boolean) : [];
  const title = doc.external_id || `Document ${doc.id}`;

  return (
    <div class={`annotate${showGuide ? " with-guide" : ""}`}>
      <TopBar
        me={me}
        right={
          <>
            <SaveStatusBadge status={status} onRetry={() => queueRef.current?.retryNow()} />
            {!readOnly && (
              <button type="button" class="btn primary" onClick={() => dialogRef.current?.showModal()}>
                Submit document
              </button>
            )}
          </>
        }
      >
        <nav class="crumbs" aria-label="Breadcrumb">
          <a href="/" onClick={linkHandler("/")}>
            Projects
          </a>
          <span aria-hidden="true">›</span>
          <a href={`/projects/${project.id}/`} onClick={linkHandler(`/projects/${project.id}/`)}>
            {project.name}
          </a>
          <span aria-hidden="true">›</span>
          <span class="doc-title">{title}</span>
        </nav>
        <button type="button" class={`btn ghost small${showGuide ? " on" : ""}`} aria-pressed={showGuide} onClick={toggleGuide}>
          Guidelines <kbd>G</kbd>
        </button>
      </TopBar>

      {readOnly && (
        <div class="banner" role="status">
          <strong>Submitted</strong>
          {data.annotation.submitted_at && <> on {new Date(data.annotation.submitted_at).toLocaleString()}</>} — this
          annotation is read-only.
          {afterSubmit && (
            <button type="button" class="btn primary small" onClick={() => void nextDocument()}>
              Next document →
            </button>
          )}
        </div>
      )}

      <div class="workspace">
        {showGuide && <GuidelinesPanel guidelines={project.guidelines} focus={focusLabel} onClose={toggleGuide} />}

        <main class="doc-pane" aria-label="Document">
          <div class="doc-head">
            <h1>{title}</h1>
            <span class="muted small">
              {count} sentences · {spans.length} span{spans.length === 1 ? "" : "s"}
            </span>
          </div>
          <DocumentText
            text={doc.text}
            sentences={sentences}
            spans={shown}
            layout={layout}
            selection={sel}
            activeKey={activeKey}
            readOnly={readOnly}
            containerRef={docRef}
            onSentence={(i, shift) => {
              setSel((s) => (shift ? S.extendTo(s, i, count) : S.select(i, count)));
              if (!shift && activeKey && !(activeShown && i >= activeShown.first && i <= activeShown.last)) setActiveKey(null);
              docRef.current?.focus({ preventScroll: true });
            }}
            onChip={(key) => {
              activate(key);
              focusDoc();
            }}
            onKeyDown={onDocKey}
          />
        </main>

        <aside class="sidebar" aria-label="Annotation tools">
          {picker ? (
            <LabelPicker
              key={picker.mode === "edit" ? `edit-${picker.key}` : `new-${picker.first}-${picker.last}`}
              options={options}
              initial={picker.mode === "edit" ? (spans.find((s) => s.key === picker.key)?.labels ?? []) : []}
              title={
                picker.mode === "edit"
                  ? "Edit labels"
                  : `Label ${picker.first === picker.last ? `sentence ${picker.first + 1}` : `sentences ${picker.first + 1}–${picker.last + 1}`}`
              }
              editing={picker.mode === "edit"}
              sameRangeSpan={picker.mode === "create" && !!sameRange(picker.first, picker.last)}
              onConfirm={onPickerConfirm}
              onCancel={() => {
                setPicker(null);
                focusDoc();
              }}
              onFocusLabel={(o) => o && setFocusLabel(o)}
            />
          ) : active && activeShown ? (
            <div
              onKeyDown={(e) => {
                if (e.key === "Escape") {
                  e.preventDefault();
                  (e.target as HTMLElement).blur?.();
                  focusDoc();
                }
              }}
            >
              <SpanEditor
                span={{
                  key: active.key,
                  first: activeShown.first,
                  last: activeShown.last,
                  labels: active.labels,
                  details: active.details,
                  excerpt: doc.text.slice(active.start, active.end),
                }}
                options={optionByName}
                readOnly={readOnly}
                canMove={!!sel && (S.toChars(sel, sentences).start !== active.start || S.toChars(sel, sentences).end !== active.end)}
                onDetail={(label: string, detail: LabelDetail) =>
                  updateSpan(active.key, { details: { ...active.details, [label]: detail } }, { undo: false, delay: 400 })
                }
                onToggleNoFallacy={() => updateSpan(active.key, { labels: toggleLabel(active.labels, NO_FALLACY, labelOrder) })}
                onEditLabels={() => setPicker({ mode: "edit", key: active.key })}
                onMove={moveActive}
                onDelete={() => {
                  deleteSpan(active.key);
                  focusDoc();
                }}
                onClose={() => {
                  setActiveKey(null);
                  focusDoc();
                }}
                onFocusLabel={(o) => {
                  if (o) setFocusLabel(o);
                }}
                onEditStart={() => {
                  editSnapshot.current = { key: active.key, before: fieldsOf(active) };
                }}
                onEditEnd={() => {
                  const snap = editSnapshot.current;
                  editSnapshot.current = null;
                  const cur = snap && spansRef.current.find((s) => s.key === snap.key);
                  if (snap && cur && JSON.stringify(cur.details) !== JSON.stringify(snap.before.details)) {
                    pushUndo({ kind: "update", key: snap.key, before: snap.before });
                  }
                }}
              />
            </div>
          ) : (
            <section class="panel browse" aria-label="Selection">
              {sel ? (
                <>
                  <div class="panel-head">
                    <h2>{selText} selected</h2>
                  </div>
                  {!readOnly && (
                    <button type="button" class="btn primary block" onClick={openPicker}>
                      Label the selection <kbd>Enter</kbd>
                    </button>
                  )}
                  {spansHere.length > 0 && (
                    <>
                      <h3 class="eyebrow">Spans on this sentence</h3>
                      <ul class="span-list compact">
                        {spansHere.map((s) => (
                          <li key={s.key}>
                            <button type="button" class="span-item" style={{ "--c": s.color }} onClick={() => activate(s.key)}>
                              <span class={`swatch${s.optional ? " optional" : ""}`} aria-hidden="true" />
                              <span class="span-labels">{s.title}</span>
                            </button>
                          </li>
                        ))}
                      </ul>
                    </>
                  )}
                </>
              ) : (
                <>
                  <div class="panel-head">
                    <h2>{readOnly ? "Read-only" : "Select sentences to annotate"}</h2>
                  </div>
                  <p class="muted small">
                    {readOnly
                      ? "Click a span to see its labels and justification."
                      : "Click a sentence (Shift+click to extend), or use the keyboard: focus the text and press ↓."}
                  </p>
                </>
              )}
              <details class="shortcuts" open={spans.length === 0}>
                <summary>Keyboard shortcuts</summary>
                <dl>
                  <dt>
                    <kbd>↑</kbd> <kbd>↓</kbd>
                  </dt>
                  <dd>Move between sentences</dd>
                  <dt>
                    <kbd>Shift</kbd>+<kbd>↑</kbd>/<kbd>↓</kbd>
                  </dt>
                  <dd>Extend the selection</dd>
                  <dt>
                    <kbd>Enter</kbd>
                  </dt>
                  <dd>Label the selection</dd>
                  <dt>
                    <kbd>1</kbd>–<kbd>9</kbd>, <kbd>0</kbd>
                  </dt>
                  <dd>In the picker: toggle a label / “no fallacy”</dd>
                  <dt>
                    <kbd>E</kbd>
                  </dt>
                  <dd>Edit a span on this sentence (repeat to cycle)</dd>
                  <dt>
                    <kbd>Del</kbd>
                  </dt>
                  <dd>Delete the open span</dd>
                  <dt>
                    <kbd>Ctrl</kbd>+<kbd>Z</kbd>
                  </dt>
                  <dd>Undo the last change</dd>
                  <dt>
                    <kbd>Esc</kbd>
                  </dt>
                  <dd>Back to the text / close</dd>
                  <dt>
                    <kbd>G</kbd>
                  </dt>
                  <dd>Show or hide the guidelines</dd>
                </dl>
              </details>
            </section>
          )}

          <section class="panel spans" aria-labelledby="spans-title">
            <div class="panel-head">
              <h2 id="spans-title">Spans ({spans.length})</h2>
            </div>
            {shown.length === 0 ? (
              <p class="muted small">No spans yet. A document without spans counts as “no fallacy”.</p>
            ) : (
              <ul class="span-list">
                {shown.map((s) => (
                  <li key={s.key}>
                    <button
                      type="button"
                      class={`span-item${s.key === activeKey ? " active" : ""}`}
                      style={{ "--c": s.color }}
                      aria-current={s.key === activeKey}
                      onClick={() => activate(s.key)}
                    >
                      <span class={`swatch${s.optional ? " optional" : ""}`} aria-hidden="true" />
                      <span class="span-labels">{s.title}</span>
                      <span class="span-range muted">{s.first === s.last ? `S${s.first + 1}` : `S${s.first + 1}–${s.last + 1}`}</span>
                    </button>
                  </li>
                ))}
              </ul>
            )}
          </section>
        </aside>
      </div>

      <div class="toasts" role="status" aria-live="polite">
        {toasts.map((t) => (
          <div class={`toast ${t.kind}`} key={t.id}>
            {t.text}
          </div>
        ))}
      </div>

      <dialog ref={dialogRef} class="dialog" aria-labelledby="submit-title">
        <h2 id="submit-title">Submit this document?</h2>
        <p>
          You marked <strong>{spans.length}</strong> span{spans.length === 1 ? "" : "s"}. After submitting, the annotation
          becomes read-only{spans.length === 0 ? " and the document counts as containing no fallacy" : ""}.
        </p>
        <div class="dialog-actions">
          <button type="button" class="btn" onClick={() => dialogRef.current?.close()}>
            Keep working
          </button>
          <button type="button" class="btn primary" disabled={submitting} onClick={() => void submit()}>
            {submitting ? "Submitting…" : "Submit"}
          </button>
        </div>
      </dialog>
    </div>
  );
}
