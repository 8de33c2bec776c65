// The document page's work area: the text with its spans, the sidebar (label picker, span
// editor or the selection), the keyboard, submitting. Editing goes through useAnnotationEditor,
// what the page points at through useSpanSelection, suggestions through useSuggestions.

import type { ComponentChildren } from "preact";
import { useMemo, useRef, useState } from "preact/hooks";
import { get } from "../../api";
import { DocumentText } from "../../components/DocumentText";
import { GuidelinesPanel } from "../../components/Guidelines";
import { flattenTaxonomy } from "../../lib/labels";
import { emptySlots } from "../../lib/template";
import { navigate, paths } from "../../router";
import type { DocumentAnnotation, DocumentDetail, Me, Project } from "../../types";
import { AnnotateTopBar } from "./AnnotateTopBar";
import { docKeyAction, type SuggestionKey } from "./keys";
import { type EmptySlotsRow, SubmitDialog } from "./SubmitDialog";
import { focusedSuggestion, nextPending, pendingAt, pendingSentences, type Suggestion } from "./suggestions";
import { SuggestionsPanel } from "./SuggestionsPanel";
import { Toasts, useToasts } from "./Toasts";
import { useAnnotationEditor } from "./useAnnotationEditor";
import { useSpanSelection } from "./useSpanSelection";
import { rangeText } from "./spans";
import { useSuggestions } from "./useSuggestions";
import { WorkspaceBanner } from "./ViewBanner";
import { useEditorFocus, useGuidelinesPanel, useReadyMark, useWindowKeys } from "./workspaceHooks";
import { WorkspaceSidebar } from "./WorkspaceSidebar";

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
  const sentences = doc.sentences;
  const count = sentences.length;

  const [showGuide, toggleGuide] = useGuidelinesPanel();
  const [submitting, setSubmitting] = useState(false);
  const [afterSubmit, setAfterSubmit] = useState(false);
  const docRef = useRef<HTMLDivElement>(null);
  const dialogRef = useRef<HTMLDialogElement>(null);
  const sugg = useSuggestions({ docId: doc.id, own, readOnly, ed, toast, labelOrder });
  const [chosenSuggestion, setChosenSuggestion] = useState<number | null>(null);
  useReadyMark(docRef);
  const focusEditor = useEditorFocus();
  const ws = useSpanSelection({ ed, sentences, optionByName, labelOrder, toast, focusEditor });
  const { sel, picker } = ws;

  const suggestionList = sugg.list;
  const focusedSugg = focusedSuggestion(suggestionList, sel?.focus ?? null, chosenSuggestion);
  const suggestedSentences = useMemo(() => pendingSentences(suggestionList), [sugg.suggestions]);

  const focusDoc = () => docRef.current?.focus({ preventScroll: true });

  // ---- justification templates ---------------------------------------------------------
  const templates = project.justification_templates ?? "optional";
  const gaps = useMemo((): EmptySlotsRow[] => {
    if (templates === "off" || !own) return [];
    const where = new Map(ws.shown.map((s) => [s.key, rangeText(s.first, s.last)]));
    return emptySlots(spans, (label) => optionByName.get(label)?.slots ?? []).map((g) => ({ ...g, where: where.get(g.key) ?? "A span" }));
  }, [spans, ws.shown, templates, own]);

  /** From the submit dialog: open the span and put the cursor in its first empty slot. */
  const goToGap = (row: EmptySlotsRow) => {
    dialogRef.current?.close();
    ws.activate(row.key);
    requestAnimationFrame(() => {
      const inputs = [...document.querySelectorAll<HTMLInputElement>(".editor input[data-slot]")];
      const slot = inputs.find((i) => i.dataset.label === row.label && !i.value.trim()) ?? inputs[0];
      document.querySelector(".sent.selected")?.scrollIntoView({ block: "center" });
      slot?.scrollIntoView({ block: "center" });
      slot?.focus({ preventScroll: true });
    });
  };

  // ---- suggestions ---------------------------------------------------------------------
  const focusSuggestion = (s: Suggestion) => {
    setChosenSuggestion(s.id);
    ws.selectOnly(s.unit_index);
  };

  /** S, Y, Shift+Y, N; false: no suggestion here to act on (the key is not taken). */
  const suggestionKey = (k: SuggestionKey): boolean => {
    if (!suggestionList.length || readOnly || picker) return false;
    if (k === "s") {
      const next = nextPending(suggestionList, focusedSugg, sel?.focus ?? null);
      if (next) focusSuggestion(next);
      else toast("No suggestion left to decide.");
      return true;
    }
    const here = sel ? pendingAt(suggestionList, sel.focus) : [];
    if (!focusedSugg || !here.length) {
      toast("No suggestion to decide on this sentence (S goes to the next).");
      return true;
    }
    void sugg.decideOn(focusedSugg, k === "y" ? "accept" : k === "n" ? "reject" : "sentence");
    return true;
  };

  // ---- keyboard and submitting ---------------------------------------------------------
  const onDocKey = (e: KeyboardEvent) => {
    const action = docKeyAction(e, { active: !!ws.active, readOnly, picker: !!picker });
    if (!action) return;
    if (action.kind === "suggestion") {
      if (suggestionKey(action.key)) e.preventDefault();
      return;
    }
    e.preventDefault();
    if (action.kind === "guide") toggleGuide();
    else ws.runKey(action);
  };

  useWindowKeys(ws.undo, toggleGuide);

  const submit = async () => {
    setSubmitting(true);
    try {
      if (await ed.submit()) {
        dialogRef.current?.close();
        ws.setPicker(null);
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
  const title = doc.name || doc.external_id || `Document ${doc.id}`;

  return (
    <div
      class={`annotate${showGuide ? " with-guide" : ""}`}
      data-view={own ? "own" : "review"}
      data-suggestions={sugg.suggestions === null ? "loading" : String(sugg.suggestions.length)}
    >
      <AnnotateTopBar
        me={me}
        project={project}
        docId={doc.id}
        title={title}
        status={ed.status}
        showSave={own}
        canSubmit={own && !readOnly}
        showGuide={showGuide}
        onRetry={ed.retry}
        onSubmit={() => dialogRef.current?.showModal()}
        onToggleGuide={toggleGuide}
      />

      <WorkspaceBanner
        own={own}
        submitted={own && ed.info.status === "submitted"}
        submittedAt={ed.info.submittedAt}
        annotation={annotation}
        viewedName={viewedName}
        switcher={switcher}
        onNext={afterSubmit ? () => void nextDocument() : undefined}
      />

      <div class="workspace">
        {showGuide && <GuidelinesPanel guidelines={project.guidelines} focus={ws.focusLabel} showTemplates={templates !== "off"} onClose={toggleGuide} />}

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
            spans={ws.shown}
            layout={ws.layout}
            selection={sel}
            activeKey={ws.activeKey}
            readOnly={readOnly}
            suggested={suggestedSentences}
            containerRef={docRef}
            onSentence={(i, shift) => {
              ws.clickSentence(i, shift);
              focusDoc();
            }}
            onDragSelect={(next) => {
              ws.setSel(next);
              ws.setPicker(null);
              ws.setActiveKey(null);
            }}
            onChip={(key) => {
              ws.activate(key);
              focusDoc();
            }}
            onKeyDown={onDocKey}
          />
        </main>

        <WorkspaceSidebar
          ws={ws}
          ed={ed}
          text={doc.text}
          sentences={sentences}
          options={options}
          optionByName={optionByName}
          labelOrder={labelOrder}
          withSuggestions={suggestionList.length > 0}
          templates={templates}
          focusDoc={focusDoc}
        >
          {suggestionList.length > 0 && (
            <SuggestionsPanel
              suggestions={suggestionList}
              focusedId={focusedSugg?.id ?? null}
              busy={sugg.deciding}
              readOnly={readOnly}
              labelOrder={labelOrder}
              options={optionByName}
              onFocus={(s) => {
                focusSuggestion(s);
                focusDoc();
              }}
              onDecide={(s, decision) => {
                void sugg.decideOn(s, decision);
                focusDoc();
              }}
            />
          )}
        </WorkspaceSidebar>
      </div>

      <Toasts toasts={toasts} />
      {own && (
        <SubmitDialog dialogRef={dialogRef} spanCount={spans.length} submitting={submitting} templates={templates} empty={gaps} onGo={goToGap} onSubmit={() => void submit()} />
      )}
    </div>
  );
}
