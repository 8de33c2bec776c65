// The document page's work area: the text with its spans, the sidebar (label picker, span
// editor or the selection), the keyboard, submitting. Editing goes through useAnnotationEditor.

import type { ComponentChildren } from "preact";
import { useEffect, useLayoutEffect, useMemo, useRef, useState } from "preact/hooks";
import { get, http } from "../../api";
import { DocumentText } from "../../components/DocumentText";
import { GuidelinesPanel } from "../../components/Guidelines";
import { type ConfirmMode, LabelPicker } from "../../components/LabelPicker";
import { errorMessage } from "../../lib/http";
import { flattenTaxonomy, type LabelOption, sortLabels } from "../../lib/labels";
import { layoutLanes } from "../../lib/layout";
import * as S from "../../lib/selection";
import { navigate, paths } from "../../router";
import {
  type DocumentAnnotation,
  type DocumentDetail,
  type Me,
  NO_FALLACY,
  type Project,
  type ServerSpan,
} from "../../types";
import { AnnotateTopBar } from "./AnnotateTopBar";
import { SelectionPanel } from "./SelectionPanel";
import { SpanListPanel } from "./SpanListPanel";
import { OpenSpanPane } from "./OpenSpanPane";
import { isTyping, rangeText, shownSpans, storage } from "./spans";
import { SubmitDialog } from "./SubmitDialog";
import {
  applyDecisions,
  type Decision,
  type DecisionKind,
  type DocumentSuggestions,
  focusedSuggestion,
  labelText,
  modelText,
  nextPending,
  pendingAt,
  pendingSentences,
  type Suggestion,
  visibleSuggestions,
} from "./suggestions";
import { SuggestionsPanel } from "./SuggestionsPanel";
import { Toasts, useToasts } from "./Toasts";
import { useAnnotationEditor } from "./useAnnotationEditor";
import { ViewBanner } from "./ViewBanner";

type PickerState = null | { mode: "create"; first: number; last: number } | { mode: "edit"; key: string };

const GUIDE_PREF = "fallacy.guidelines.open";

export interface WorkspaceProps {
  me: Me;
  doc: DocumentDetail;
  project: Project;
  /** The annotation shown (null: not started). */
  annotation: DocumentAnnotation | null;
  /** My own annotation (editable until submitted) rather than someone else's. */
  own: boolean;
  /** Whose annotation it is, for the read-only banner (someone else's). */
  viewedName?: string;
  /** The annotator switch (reviewers and admins). */
  switcher?: ComponentChildren;
}

export function Workspace({ me, doc, project, annotation, own, viewedName, switcher }: WorkspaceProps) {
  const options = useMemo(() => flattenTaxonomy(project.taxonomy), [project]);
  const optionByName = useMemo(() => new Map(options.map((o) => [o.name, o])), [options]);
  const labelOrder = useMemo(() => options.map((o) => o.name), [options]);
  const [toasts, toast] = useToasts();
  const ed = useAnnotationEditor({ docId: doc.id, userId: me.id, annotation, own, labelOrder, toast });
  const { spans, readOnly } = ed;

  const [sel, setSel] = useState<S.Selection | null>(null);
  const [activeKey, setActiveKey] = useState<string | null>(null);
  const [picker, setPicker] = useState<PickerState>(null);
  const [showGuide, setShowGuide] = useState(() => {
    const pref = storage()?.getItem(GUIDE_PREF);
    return pref ? pref === "1" : window.innerWidth >= 1200; // new annotators see the guidelines
  });
  const [focusLabel, setFocusLabel] = useState<LabelOption | null>(null);
  const [submitting, setSubmitting] = useState(false);
  const [afterSubmit, setAfterSubmit] = useState(false);
  const docRef = useRef<HTMLDivElement>(null);
  const dialogRef = useRef<HTMLDialogElement>(null);
  // Suggestions (assisted projects, my own annotation): null while loading.
  const [suggestions, setSuggestions] = useState<Suggestion[] | null>(own ? null : []);
  const suggestionsRef = useRef<Suggestion[]>([]);
  const [chosenSuggestion, setChosenSuggestion] = useState<number | null>(null);
  const [deciding, setDeciding] = useState(false);
  const decidingRef = useRef(false);

  const setSuggestionList = (next: Suggestion[]) => {
    suggestionsRef.current = next;
    setSuggestions(next);
  };

  useEffect(() => {
    if (!own) return;
    let cancelled = false;
    get<DocumentSuggestions>(`/api/evaluation/documents/${doc.id}/suggestions/`)
      .then((data) => !cancelled && setSuggestionList(visibleSuggestions(data)))
      .catch(() => !cancelled && setSuggestionList([])); // the page works without them
    return () => {
      cancelled = true;
    };
  }, [doc.id, own]);

  // Ready: rendered and listening to the keyboard.
  useLayoutEffect(() => {
    docRef.current?.focus({ preventScroll: true });
    requestAnimationFrame(() => {
      document.documentElement.setAttribute("data-ready", "annotate");
      performance.mark("app-ready"); // read by bench/page_load.py
    });
    return () => document.documentElement.removeAttribute("data-ready");
  }, []);

  // ---- derived ------------------------------------------------------------------------
  const sentences = doc.sentences;
  const count = sentences.length;
  const shown = useMemo(() => shownSpans(spans, sentences, optionByName), [spans, sentences, optionByName]);
  const shownByKey = useMemo(() => new Map(shown.map((s) => [s.key, s])), [shown]);
  const layout = useMemo(() => layoutLanes(shown), [shown]);
  const active = activeKey ? spans.find((s) => s.key === activeKey) : undefined;
  const activeShown = activeKey ? shownByKey.get(activeKey) : undefined;
  const suggestionList = suggestions ?? [];
  const focusedSugg = focusedSuggestion(suggestionList, sel?.focus ?? null, chosenSuggestion);
  const suggestedSentences = useMemo(() => pendingSentences(suggestionList), [suggestions]);

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

  // ---- focus ----------------------------------------------------------------------------
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

  // ---- actions --------------------------------------------------------------------------
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
      const cur = ed.spansRef.current.find((s) => s.key === picker.key);
      if (cur) {
        const details = Object.fromEntries(Object.entries(cur.details).filter(([l]) => labels.includes(l)));
        ed.updateSpan(cur.key, { labels, details });
      }
      setPicker(null);
      focusEditor();
      return;
    }
    const { first, last } = picker;
    const existing = sameRange(first, last);
    let key: string;
    if (mode === "merge" && existing) {
      const cur = ed.spansRef.current.find((s) => s.key === existing.key)!;
      key = cur.key;
      ed.updateSpan(key, { labels: sortLabels([...new Set([...cur.labels, ...labels])], labelOrder) });
    } else {
      key = ed.createSpan({ start: sentences[first].start, end: sentences[last].end, labels: sortLabels(labels, labelOrder), details: {} });
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
    ed.updateSpan(active.key, { start, end });
    toast("Span moved to the selected sentences.");
  };

  const deleteActive = () => {
    if (!active) return;
    ed.deleteSpan(active.key);
    setActiveKey(null);
  };

  const undo = () => {
    const key = ed.undo();
    if (key) setActiveKey(key);
  };

  // ---- suggestions ---------------------------------------------------------------------
  /** The spans the server made for accepted suggestions join the page's (no reload). */
  const adoptAccepted = async (decisions: Decision[]) => {
    const ids = [...new Set(decisions.map((d) => d.span).filter((id): id is number => id !== null))];
    if (!ids.length) return;
    try {
      ed.adoptSpans(await Promise.all(ids.map((id) => get<ServerSpan>(`/api/spans/${id}/`))));
    } catch {
      await ed.resync(); // reload my annotation instead (keeps what is still queued)
    }
  };

  const decideOn = async (s: Suggestion, decision: DecisionKind | "sentence") => {
    if (decidingRef.current || readOnly) return;
    decidingRef.current = true;
    setDeciding(true);
    try {
      const res =
        decision === "sentence"
          ? await http("POST", `/api/evaluation/documents/${doc.id}/suggestions/accept-sentence/`, { unit_index: s.unit_index })
          : await http("POST", `/api/evaluation/suggestions/${s.id}/decision/`, { decision });
      let made: Decision[] = [];
      if (res.status >= 200 && res.status < 300) {
        made = decision === "sentence" ? (res.data as { decisions: Decision[] }).decisions : [res.data as Decision];
        const accepted = made.filter((d) => d.decision === "accept").length;
        toast(
          decision === "reject"
            ? `Rejected: ${labelText(s, labelOrder)} (${modelText(s.run)}).`
            : decision === "accept"
              ? `Accepted: ${labelText(s, labelOrder)}, now your span (E opens it).`
              : `Accepted ${accepted} suggestion${accepted === 1 ? "" : "s"} on ${rangeText(s.unit_index, s.unit_index, true)}.`,
        );
      } else if (res.status === 409 && res.data?.current) {
        made = [res.data.current as Decision];
        toast(`Already ${made[0].decision}ed earlier; a decision is not changed.`, "warn");
      } else {
        toast(`Not decided: ${errorMessage(res.data, `the server answered ${res.status}`)}`, "error");
      }
      if (made.length) {
        await adoptAccepted(made); // the spans first, so the page never shows an accept without its span
        setSuggestionList(applyDecisions(suggestionsRef.current, made));
      }
    } catch {
      toast("Not decided: the server cannot be reached. Try again.", "error");
    } finally {
      decidingRef.current = false;
      setDeciding(false);
    }
  };

  const focusSuggestion = (s: Suggestion) => {
    setChosenSuggestion(s.id);
    setPicker(null);
    setActiveKey(null);
    setSel(S.select(s.unit_index, count));
  };

  const suggestionKey = (k: string): boolean => {
    if (!suggestionList.length || readOnly || picker) return false;
    if (k === "s") {
      const next = nextPending(suggestionList, focusedSugg, sel?.focus ?? null);
      if (next) focusSuggestion(next);
      else toast("No suggestion left to decide.");
      return true;
    }
    if (k !== "y" && k !== "n" && k !== "Y") return false;
    const here = sel ? pendingAt(suggestionList, sel.focus) : [];
    if (!focusedSugg || !here.length) {
      toast("No suggestion to decide on this sentence (S goes to the next).");
      return true;
    }
    void decideOn(focusedSugg, k === "y" ? "accept" : k === "n" ? "reject" : "sentence");
    return true;
  };

  const toggleGuide = () =>
    setShowGuide((v) => {
      storage()?.setItem(GUIDE_PREF, v ? "0" : "1");
      return !v;
    });

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
      deleteActive();
    } else if (k === "Escape") {
      handled();
      if (picker) setPicker(null);
      else if (activeKey) setActiveKey(null);
      else setSel(null);
    } else if (k === "g" || k === "?") {
      handled();
      toggleGuide();
    } else if ((k === "s" || k === "y" || k === "Y" || k === "n") && suggestionKey(k)) {
      handled();
    }
  };

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

  const submit = async () => {
    setSubmitting(true);
    try {
      if (await ed.submit()) {
        dialogRef.current?.close();
        setPicker(null);
        setAfterSubmit(true);
      }
    } finally {
      setSubmitting(false);
    }
  };

  const nextDocument = async () => {
    const { document: next } = await get<{ document: number | null }>(`/api/projects/${project.id}/next-document/`);
    if (next && next !== doc.id) navigate(paths.document(next));
    else {
      toast("No more documents to annotate in this project.");
      navigate(paths.project(project.id));
    }
  };

  // ---- render ---------------------------------------------------------------------------
  const selRange = sel ? S.range(sel) : null;
  const spansHere = sel ? (layout.bySentence.get(sel.focus) ?? []).map((h) => shownByKey.get(h.key)!).filter(Boolean) : [];
  const title = doc.name || doc.external_id || `Document ${doc.id}`;
  const submittedOwn = own && ed.info.status === "submitted";

  return (
    <div
      class={`annotate${showGuide ? " with-guide" : ""}`}
      data-view={own ? "own" : "review"}
      data-suggestions={suggestions === null ? "loading" : String(suggestions.length)}
    >
      <AnnotateTopBar
        me={me}
        project={project}
        title={title}
        status={ed.status}
        showSave={own}
        canSubmit={own && !readOnly}
        showGuide={showGuide}
        onRetry={ed.retry}
        onSubmit={() => dialogRef.current?.showModal()}
        onToggleGuide={toggleGuide}
      />

      {submittedOwn ? (
        <ViewBanner kind="submitted" submittedAt={ed.info.submittedAt}>
          {switcher}
          {afterSubmit && (
            <button type="button" class="btn primary small" onClick={() => void nextDocument()}>
              Next document →
            </button>
          )}
        </ViewBanner>
      ) : !own ? (
        <ViewBanner kind={annotation ? "review" : "none"} username={viewedName} status={annotation?.status} submittedAt={annotation?.submitted_at}>
          {switcher}
        </ViewBanner>
      ) : (
        switcher && (
          <div class="banner mine" role="status">
            <strong>Your annotation</strong>
            {switcher}
          </div>
        )
      )}

      <div class="workspace">
        {showGuide && <GuidelinesPanel guidelines={project.guidelines} focus={focusLabel} onClose={toggleGuide} />}

        <main class="doc-pane" aria-label="Document">
          <div class="doc-head">
            <h1>{title}</h1>
            <span class="muted small">
              {count} sentences · {spans.length} span{spans.length === 1 ? "" : "s"}
              {suggestedSentences.size > 0 && ` · ${suggestedSentences.size} sentence${suggestedSentences.size === 1 ? "" : "s"} with suggestions`}
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
            suggested={suggestedSentences}
            containerRef={docRef}
            onSentence={(i, shift) => {
              setSel((s) => (shift ? S.extendTo(s, i, count) : S.select(i, count)));
              if (!shift && activeKey && !(activeShown && i >= activeShown.first && i <= activeShown.last)) setActiveKey(null);
              focusDoc();
            }}
            onDragSelect={(next) => {
              setSel(next);
              setPicker(null);
              setActiveKey(null);
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
              title={picker.mode === "edit" ? "Edit labels" : `Label ${rangeText(picker.first, picker.last, true)}`}
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
            <OpenSpanPane
              span={active}
              shown={activeShown}
              text={doc.text}
              options={optionByName}
              labelOrder={labelOrder}
              readOnly={readOnly}
              canMove={!!sel && (S.toChars(sel, sentences).start !== active.start || S.toChars(sel, sentences).end !== active.end)}
              ed={ed}
              onEditLabels={() => setPicker({ mode: "edit", key: active.key })}
              onMove={moveActive}
              onDelete={deleteActive}
              onClose={() => setActiveKey(null)}
              onFocusLabel={setFocusLabel}
              focusDoc={focusDoc}
            />
          ) : (
            <SelectionPanel
              selText={selRange ? rangeText(selRange[0], selRange[1]) : ""}
              readOnly={readOnly}
              spansHere={spansHere}
              noSpans={spans.length === 0}
              withSuggestions={suggestionList.length > 0}
              onLabel={openPicker}
              onOpen={(key) => activate(key)}
            />
          )}

          {suggestionList.length > 0 && (
            <SuggestionsPanel
              suggestions={suggestionList}
              focusedId={focusedSugg?.id ?? null}
              busy={deciding}
              readOnly={readOnly}
              labelOrder={labelOrder}
              options={optionByName}
              onFocus={(s) => {
                focusSuggestion(s);
                focusDoc();
              }}
              onDecide={(s, decision) => {
                void decideOn(s, decision);
                focusDoc();
              }}
            />
          )}

          <SpanListPanel spans={shown} activeKey={activeKey} onOpen={(key) => activate(key)} />
        </aside>
      </div>

      <Toasts toasts={toasts} />
      {own && <SubmitDialog dialogRef={dialogRef} spanCount={spans.length} submitting={submitting} onSubmit={() => void submit()} />}
    </div>
  );
}
