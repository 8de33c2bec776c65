// The document page of an item project: the item text (and the candidate text being judged),
// then one widget per form field. My own response autosaves (ResponseSaver) and is submitted
// once every answer field is answered; someone else's (reviewers, admins) is read-only, with
// the gold answer shown. A 409 (changed in another tab, or reopened by a reviewer) stops
// saving and offers to load the current version.

import type { ComponentChildren } from "preact";
import { useEffect, useLayoutEffect, useMemo, useRef, useState } from "preact/hooks";
import { ApiError, api, get, http } from "../../api";
import { Crumbs } from "../../components/Crumbs";
import { ConfirmDialog } from "../../components/form/ConfirmDialog";
import { LoadErrorMessage } from "../../components/PageMessage";
import { SaveStatusBadge } from "../../components/SaveStatus";
import { TopBar } from "../../components/TopBar";
import { type LoadError, toLoadError } from "../../hooks/useResource";
import type { SaveStatus } from "../../lib/saveStatus";
import { navigate, paths } from "../../router";
import type { ItemAnswer, ItemState, Me } from "../../types";
import { fieldErrors, missingAnswers, RATING_KINDS, withChanges } from "./logic";
import { type Changes, ResponseSaver, responseUrl } from "./save";
import { DocumentNav } from "../annotate/DocumentNav";
import { FieldWidget } from "./FieldWidget";
import { ConflictBanner, ItemBanner } from "./ItemBanners";
import "./items.css";

export interface ItemPageProps {
  me: Me;
  docId: number;
  /** Whose response is shown (null: nobody has started the document). */
  viewed: number | null;
  /** My own response (editable until submitted) rather than someone else's. */
  own: boolean;
  /** Reviewers and admins: the annotator switch. */
  switcher?: ComponentChildren;
}

export function ItemPage({ me, docId, viewed, own, switcher }: ItemPageProps) {
  const [state, setState] = useState<ItemState | null>(null);
  const [loadError, setLoadError] = useState<LoadError | null>(null);
  const [local, setLocal] = useState<Changes>({});
  const [errors, setErrors] = useState<Record<string, string>>({});
  const [status, setStatus] = useState<SaveStatus>({ state: "saved" });
  const [conflict, setConflict] = useState<ItemState | null>(null);
  const [submitting, setSubmitting] = useState(false);
  const [confirming, setConfirming] = useState(false);
  const [notice, setNotice] = useState<string | null>(null);
  const saverRef = useRef<ResponseSaver | null>(null);

  const query = !own && viewed !== null ? `?annotator=${viewed}` : "";
  useEffect(() => {
    let cancelled = false;
    get<ItemState>(responseUrl(docId) + query)
      .then((s) => !cancelled && setState(s))
      .catch((e) => !cancelled && setLoadError(toLoadError(e)));
    return () => {
      cancelled = true;
    };
  }, [docId, query]);

  // The saver lives as long as the page shows my own response.
  useEffect(() => {
    if (!state || !own || saverRef.current) return;
    const saver = new ResponseSaver({
      docId,
      revision: state.annotation?.revision ?? null,
      http,
      onStatus: setStatus,
      onSaved: (s) => {
        setState(s);
        setLocal(saver.unsaved());
      },
      onConflict: (current) => setConflict(current),
      onRejected: (_changes, errs) => {
        setErrors((e) => ({ ...e, ...fieldErrors(errs) }));
        setLocal(saver.unsaved());
      },
    });
    saverRef.current = saver;
    const beforeUnload = (e: BeforeUnloadEvent) => {
      if (Object.keys(saver.unsaved()).length) e.preventDefault();
    };
    window.addEventListener("beforeunload", beforeUnload);
    return () => window.removeEventListener("beforeunload", beforeUnload);
  }, [state !== null, own]);
  useEffect(() => () => saverRef.current?.stop(), []);

  useLayoutEffect(() => {
    if (!state) return;
    requestAnimationFrame(() => document.documentElement.setAttribute("data-ready", "annotate"));
    return () => document.documentElement.removeAttribute("data-ready");
  }, [state !== null]);

  const response = useMemo(() => withChanges(state?.annotation?.response ?? {}, local), [state, local]);

  if (loadError || !state) {
    return (
      <>
        <TopBar me={me} />
        {loadError ? (
          <main class="page narrow">
            <LoadErrorMessage error={loadError} onRetry={() => location.reload()} />
          </main>
        ) : (
          <p class="boot">Loading item…</p>
        )}
      </>
    );
  }

  const { document: doc, project, form, annotation } = state;
  const submitted = annotation?.status === "submitted";
  const readOnly = !own || submitted || project.archived || conflict !== null;
  const title = doc.name || doc.external_id || `Item ${doc.id}`;
  const staff = project.role === "admin" || project.role === "reviewer";

  const change = (name: string, value: ItemAnswer | null, delayMs = 0) => {
    if (readOnly || !saverRef.current) return;
    setLocal((l) => ({ ...l, [name]: value }));
    setErrors((e) => {
      const { [name]: _gone, ...rest } = e;
      return rest;
    });
    saverRef.current.change(name, value, delayMs);
  };

  const loadCurrent = () => {
    if (!conflict) return;
    setState(conflict);
    setLocal({});
    setErrors({});
    saverRef.current?.reset(conflict.annotation?.revision ?? null);
    setConflict(null);
  };

  /** Names the missing answers, or asks to confirm the submission. */
  const requestSubmit = () => {
    const missing = missingAnswers(form.fields, response);
    if (missing.length) {
      setErrors(Object.fromEntries(missing.map((n) => [n, "An answer is required to submit."])));
      document.querySelector(`[data-testid="field-${missing[0]}"]`)?.scrollIntoView({ block: "center" });
      return;
    }
    setConfirming(true);
  };

  const submit = async () => {
    const saver = saverRef.current;
    setConfirming(false);
    if (!saver) return;
    setSubmitting(true);
    try {
      if (!(await saver.flush())) return;
      const res = await http("POST", `${responseUrl(docId)}submit/`, { revision: saver.revision });
      if (res.status === 200) {
        setState(res.data as ItemState);
        setNotice("Submitted. Thank you!");
      } else if (res.status === 409) {
        setConflict((res.data?.current as ItemState) ?? null);
      } else {
        setErrors(fieldErrors(res.data));
      }
    } finally {
      setSubmitting(false);
    }
  };

  const reopen = async () => {
    if (!annotation) return;
    try {
      setState(await api<ItemState>("POST", `${responseUrl(docId)}reopen/`, { annotator: annotation.annotator.id }));
    } catch (e) {
      setNotice(e instanceof ApiError ? e.message : String(e));
    }
  };

  const nextDocument = async () => {
    const { document: next } = await get<{ document: number | null }>(`/api/projects/${project.id}/next-document/`);
    if (next && next !== docId) navigate(paths.document(next));
    else navigate(paths.project(project.id));
  };

  return (
    <div class="annotate item-page" data-view={own ? "own" : "review"}>
      <TopBar
        me={me}
        right={
          <>
            {own && <SaveStatusBadge status={status} onRetry={() => saverRef.current?.retryNow()} />}
            {own && !readOnly && (
              <button type="button" class="btn primary" disabled={submitting} data-testid="item-submit" onClick={requestSubmit}>
                {submitting ? "Submitting…" : "Submit"}
              </button>
            )}
          </>
        }
      >
        <Crumbs items={[{ label: project.name, href: paths.project(project.id) }, { label: title }]} />
        <DocumentNav docId={docId} />
      </TopBar>

      <ConfirmDialog
        open={confirming}
        title="Submit this item?"
        confirmLabel="Submit"
        cancelLabel="Keep working"
        busy={submitting}
        onConfirm={() => void submit()}
        onCancel={() => setConfirming(false)}
        testId="item-submit-dialog"
      >
        <p>After submitting, your answers become read-only; a reviewer can reopen them.</p>
      </ConfirmDialog>
      {conflict && <ConflictBanner onLoadCurrent={loadCurrent} />}
      <ItemBanner
        own={own}
        annotation={annotation}
        archived={project.archived}
        staff={staff}
        switcher={switcher}
        onReopen={() => void reopen()}
        onNext={notice ? () => void nextDocument() : undefined}
      />
      {notice && !submitted && (
        <p class="note" role="status">
          {notice}
        </p>
      )}

      <main class="page item-main" aria-label="Item">
        <section class="panel item-text-panel">
          <div class="doc-head">
            <h1>{title}</h1>
          </div>
          <div class="item-text" data-testid="item-text">
            {doc.text}
          </div>
          {doc.candidate !== null && (
            <div class="item-candidate" data-testid="item-candidate">
              <h2 class="small">Text to judge</h2>
              <div class="item-text">{doc.candidate}</div>
            </div>
          )}
        </section>

        {form.fields.map((field) => (
          <FieldWidget
            key={field.name}
            field={field}
            value={response[field.name]}
            readOnly={readOnly}
            doc={doc}
            required={!RATING_KINDS.has(field.kind)}
            error={errors[field.name]}
            gold={state.gold ? state.gold[field.name] : undefined}
            onChange={(value, delayMs) => change(field.name, value, delayMs)}
          />
        ))}
        {!form.fields.length && <p class="muted">This project's form has no questions.</p>}
        {errors.annotation && (
          <p class="field-error" role="alert">
            {errors.annotation}
          </p>
        )}
      </main>
    </div>
  );
}
