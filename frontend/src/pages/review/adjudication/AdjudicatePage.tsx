import { useEffect, useMemo, useRef, useState } from "preact/hooks";
import { http } from "../../../api";
import { Crumbs } from "../../../components/Crumbs";
import { LoadErrorMessage } from "../../../components/PageMessage";
import { ProjectNav } from "../../../components/ProjectNav";
import { TopBar } from "../../../components/TopBar";
import { useResource } from "../../../hooks/useResource";
import { useProject } from "../../../hooks/useProject";
import { flattenTaxonomy } from "../../../lib/labels";
import { linkHandler, navigate, paths, setNavigationGuard } from "../../../router";
import type { Adjudication, GoldState, Me } from "../../../types";
import { AdjudicationNav, LeaveDialog } from "./AdjudicationNav";
import { boundaryKey } from "./nav";
import { ConflictBanner, SaveMessage, ShortcutList } from "./Banners";
import { GoldPanel, namesOf, ProposalList } from "./GoldPanel";
import { fetchNext, saveLabel } from "./queue";
import { type Picked, SideBySide } from "./SideBySide";
import { addOrUnion, fromProposal, fromServer, type GoldSpanDraft, isDirty, merge, moveBoundary, newSpan, rebase, setExplanation, toggleLabel, toPayload } from "./state";
import "./adjudication.css";

interface Conflict {
  current: GoldState;
}

export function AdjudicatePage({ me, projectId, documentId }: { me: Me; projectId: number; documentId: number }) {
  const project = useProject(projectId);
  const url = `/api/documents/${documentId}/adjudication/`;
  const data = useResource<Adjudication>(url);
  const [saved, setSaved] = useState<GoldSpanDraft[]>([]);
  const [spans, setSpans] = useState<GoldSpanDraft[]>([]);
  const [revision, setRevision] = useState(0);
  // whether the draft holds this document's gold as shown (the button then reads "Saved")
  const [stored, setStored] = useState(false);
  const [picked, setPicked] = useState<Picked[]>([]);
  const [focus, setFocus] = useState(0);
  const [active, setActive] = useState<string | null>(null);
  const [conflict, setConflict] = useState<Conflict | null>(null);
  const [message, setMessage] = useState<string | null>(null);
  const [saving, setSaving] = useState(false);
  const [help, setHelp] = useState(false);
  const [next, setNext] = useState<number | null | undefined>(undefined);
  // where the reviewer asked to go while the gold spans were not saved (the leave dialog)
  const [leaving, setLeaving] = useState<string | null>(null);

  const reset = (gold: GoldState) => {
    const fresh = gold.spans.map(fromServer);
    setSaved(fresh);
    setSpans(fresh);
    setRevision(gold.revision);
    setStored(gold.adjudicated);
  };
  useEffect(() => {
    if (data.data) reset(data.data.gold);
  }, [data.data]);

  const doc = data.data;
  const bounds = doc?.document.sentences ?? [];
  const names = useMemo(() => namesOf(doc?.annotators ?? []), [doc]);
  const labelNames = useMemo(() => (project ? flattenTaxonomy(project.taxonomy).map((o) => o.name) : []), [project]);
  const dirty = isDirty(saved, spans);
  const plan = useMemo(() => (conflict ? rebase(saved, spans, conflict.current.spans.map(fromServer)) : null), [conflict, saved, spans]);

  useEffect(() => {
    if (!dirty) return;
    const warn = (e: BeforeUnloadEvent) => e.preventDefault();
    window.addEventListener("beforeunload", warn);
    // every in-app link (breadcrumbs, tabs, top bar) asks first, as previous/next do
    const lift = setNavigationGuard((to) => {
      setLeaving(to);
      return false;
    });
    return () => {
      window.removeEventListener("beforeunload", warn);
      lift();
    };
  }, [dirty]);

  const update = (key: string, f: (s: GoldSpanDraft) => GoldSpanDraft) => setSpans((all) => all.map((s) => (s.key === key ? f(s) : s)));
  const acceptProposal = (i: number) => {
    const proposal = doc?.proposals[i];
    if (!proposal) return;
    const span = fromProposal(proposal);
    setSpans((all) => addOrUnion(all, span));
    setActive(span.key);
  };
  const mergePicked = () => {
    if (!doc) return;
    const chosen = picked.map((p) => ({ annotator: p.annotator, span: doc.annotators.find((a) => a.id === p.annotator)!.spans[p.index] }));
    const span = merge(bounds, chosen);
    if (!span) return;
    setSpans((all) => addOrUnion(all, span));
    setActive(span.key);
    setPicked([]);
  };
  const togglePick = (p: Picked) =>
    setPicked((all) => (all.some((q) => q.annotator === p.annotator && q.index === p.index) ? all.filter((q) => q.annotator !== p.annotator || q.index !== p.index) : [...all, p]));

  const addOnSentence = (row: number, label: string) => {
    const span = newSpan(bounds, bounds[row][0], bounds[row][1], label);
    setSpans((all) => addOrUnion(all, span));
    setActive(span.key);
  };

  /** Saves the gold spans; true when saved. */
  const save = async (base = revision, body = spans): Promise<boolean> => {
    setSaving(true);
    setMessage(null);
    try {
      const res = await http("PUT", url, { revision: base, spans: toPayload(body) });
      if (res.status === 200) {
        reset(res.data as GoldState);
        setConflict(null);
        setMessage("Saved.");
        if (!doc?.draft) void data.reload(); // the first save created the draft
        fetchNext(projectId, documentId).then(setNext, () => setNext(undefined));
        return true;
      } else if (res.status === 409) {
        setConflict({ current: (res.data as { current: GoldState }).current });
      } else {
        const b = res.data as Record<string, unknown> | null;
        setMessage(`Not saved: ${JSON.stringify(b?.detail ?? b)}`);
      }
    } catch (e) {
      setMessage(`Not saved: ${String((e as Error).message ?? e)}`);
    } finally {
      setSaving(false);
    }
    return false;
  };
  /** Goes to another page, asking first (save / discard / stay) when the spans are not saved. */
  const leave = (to: string) => (dirty ? setLeaving(to) : navigate(to));
  const saveAndLeave = async () => {
    const to = leaving;
    const ok = await save();
    setLeaving(null);
    if (ok && to) navigate(to, false, true);
  };
  /** Their save becomes the base; the reviewer's edits since loading go on top, then save. */
  const reapply = () => {
    if (!conflict || !plan) return;
    setSaved(conflict.current.spans.map(fromServer));
    setSpans(plan.spans);
    setRevision(conflict.current.revision);
    setConflict(null);
    void save(conflict.current.revision, plan.spans);
  };
  const discardMine = () => {
    if (!conflict) return;
    reset(conflict.current);
    setConflict(null);
  };

  // The handler of the latest render (assigned while rendering, so a key pressed right after
  // a click sees that click's state; effects run only after the next paint).
  const onKeyRef = useRef<(e: KeyboardEvent) => void>(() => undefined);
  onKeyRef.current = (e: KeyboardEvent) => {
      if (document.querySelector("dialog[open]")) return; // the dialog's own buttons and Escape
      const target = e.target as HTMLElement;
      if ((e.ctrlKey || e.metaKey) && e.key === "s") {
        e.preventDefault();
        if (!conflict && !saving) void save();
        return;
      }
      if (target.closest("input, textarea, select")) return;
      const count = doc?.proposals.length ?? 0;
      if (e.ctrlKey || e.metaKey || e.altKey) return;
      const move = boundaryKey(e);
      if (e.key === "j" || e.key === "ArrowDown") setFocus((f) => Math.min(f + 1, Math.max(count - 1, 0)));
      else if (e.key === "k" || e.key === "ArrowUp") setFocus((f) => Math.max(f - 1, 0));
      else if (e.key === "a") (picked.length ? mergePicked() : acceptProposal(focus));
      else if (e.key === "m") mergePicked();
      else if (e.key === "n" && active) update(active, (s) => toggleLabel(s, "no fallacy"));
      else if (move && active) update(active, (s) => moveBoundary(bounds, s, move.edge, move.delta));
      else if (e.key === "Escape") setPicked([]);
      else if (e.key === "Delete" && active) setSpans((all) => all.filter((s) => s.key !== active));
      else if (e.key === "?") setHelp((h) => !h);
      else return;
      e.preventDefault();
  };
  useEffect(() => {
    const onKey = (e: KeyboardEvent) => onKeyRef.current(e);
    window.addEventListener("keydown", onKey);
    return () => window.removeEventListener("keydown", onKey);
  }, []);

  const title = doc?.document.name ?? `Document ${documentId}`;
  return (
    <>
      <TopBar me={me}>
        <Crumbs items={[{ label: project?.name ?? `Project ${projectId}`, href: paths.project(projectId) }, { label: "Adjudication", href: paths.adjudicationQueue(projectId) }, { label: title }]} />
      </TopBar>
      <ProjectNav me={me} projectId={projectId} role={project?.role} active="adjudication" />
      <main class="page wide" data-testid="adjudicate-page">
        {data.error && !doc ? (
          <LoadErrorMessage error={data.error} onRetry={() => void data.reload()} />
        ) : !doc ? (
          <p class="muted">Loading…</p>
        ) : (
          <>
            <div class="page-head">
              <div>
                <h1>{title}</h1>
                <p class="muted">
                  {doc.draft ? `Gold draft v${doc.draft.version}` : "No draft yet: saving creates one"} · revision {revision}
                  {doc.previous ? ` · published v${doc.previous.version} has ${doc.previous.spans.length} span(s) here` : ""} ·{" "}
                  <a href={paths.documentHistory(documentId)} onClick={linkHandler(paths.documentHistory(documentId))}>
                    history
                  </a>
                </p>
              </div>
              <div class="adj-actions">
                <AdjudicationNav projectId={projectId} documentId={documentId} onLeave={leave} />
                <button type="button" class="btn" onClick={() => setHelp((h) => !h)}>
                  Shortcuts <kbd>?</kbd>
                </button>
                <button type="button" class="btn primary" disabled={saving || !!conflict} onClick={() => void save()} data-testid="save-gold">
                  {saveLabel({ saving, dirty, stored: stored && !!doc.draft })} <kbd>Ctrl+S</kbd>
                </button>
              </div>
            </div>
            <LeaveDialog open={leaving !== null} saving={saving} onSave={() => void saveAndLeave()} onDiscard={() => leaving && navigate(leaving, false, true)} onStay={() => setLeaving(null)} />
            {help && <ShortcutList />}
            {conflict && plan && <ConflictBanner current={conflict.current} plan={plan} onReapply={reapply} onDiscard={discardMine} />}
            {message && <SaveMessage message={message} projectId={projectId} next={next} />}
            <div class="adj-layout">
              <SideBySide text={doc.document.text} sentences={bounds} annotators={doc.annotators} gold={spans} picked={picked} activeGold={active} onPick={togglePick} onGold={setActive} labelNames={labelNames} onAdd={addOnSentence} />
              <aside class="adj-side">
                <h2>Proposals</h2>
                <ProposalList proposals={doc.proposals} focus={focus} names={names} onFocus={setFocus} onAccept={acceptProposal} text={doc.document.text} />
                <button type="button" class="btn" disabled={!picked.length} onClick={mergePicked} data-testid="merge-picked">
                  {picked.length === 1 ? "Accept the picked span" : `Merge ${picked.length || ""} picked spans`} <kbd>m</kbd>
                </button>
                <h2>Gold spans</h2>
                <GoldPanel
                  spans={spans}
                  active={active}
                  text={doc.document.text}
                  labelNames={labelNames}
                  names={names}
                  onActive={setActive}
                  onToggleLabel={(key, label) => update(key, (s) => toggleLabel(s, label))}
                  onMove={(key, edge, delta) => update(key, (s) => moveBoundary(bounds, s, edge, delta))}
                  onExplain={(key, label, text) => update(key, (s) => setExplanation(s, label, text))}
                  onDelete={(key) => setSpans((all) => all.filter((s) => s.key !== key))}
                />
                <p>
                  <button type="button" class="btn ghost" onClick={() => leave(paths.adjudicationQueue(projectId))}>
                    ← Queue
                  </button>
                </p>
              </aside>
            </div>
          </>
        )}
      </main>
    </>
  );
}
