// The document page: loads the document, its project and its annotations (reading only:
// the annotation is created with the first saved change), picks whose annotation to show
// and hands it to the Workspace. Refused or unknown documents get the app's 404 page.

import { useEffect, useMemo, useState } from "preact/hooks";
import { LoadErrorMessage } from "../../components/PageMessage";
import { TopBar } from "../../components/TopBar";
import { type LoadError, toLoadError } from "../../hooks/useResource";
import { isProjectStaff } from "../../lib/roles";
import { takeDocument } from "../../prefetch";
import { paths } from "../../router";
import type { DocumentAnnotation, DocumentDetail, DocumentKind, Me, Project } from "../../types";
import { ItemPage } from "../items/ItemPage";
import { AnnotatorSwitch } from "./AnnotatorSwitch";
import { chooseAnnotator, requestedAnnotator, switchOptions } from "./view";
import { Workspace } from "./Workspace";
import "./annotate.css";

interface Loaded {
  doc: DocumentDetail;
  project: Project;
  annotations: DocumentAnnotation[];
}

export function AnnotatePage({ me, id }: { me: Me; id: number }) {
  const [data, setData] = useState<Loaded | null>(null);
  const [error, setError] = useState<LoadError | null>(null);
  const [requested, setRequested] = useState(() => requestedAnnotator(location.search));

  useEffect(() => {
    let cancelled = false;
    const bundle = takeDocument(id);
    Promise.all([bundle.doc, bundle.annotations, bundle.project])
      .then(([doc, annotations, project]) => {
        performance.mark("app-data"); // read by bench/page_load.py
        if (!cancelled) setData({ doc, project, annotations });
      })
      .catch((e) => !cancelled && setError(toLoadError(e)));
    const onPop = () => setRequested(requestedAnnotator(location.search));
    window.addEventListener("popstate", onPop);
    return () => {
      cancelled = true;
      window.removeEventListener("popstate", onPop);
    };
  }, [id]);

  const staff = data ? isProjectStaff(me, data.project.id, data.project.role) : false;
  const input = data ? { me, staff, doc: data.doc, annotations: data.annotations, requested } : null;
  const options = useMemo(() => (input && staff ? switchOptions(input) : []), [data, staff]);
  const viewed = input ? chooseAnnotator(input) : null;

  if (error || !data) {
    return (
      <>
        <TopBar me={me} />
        {error ? (
          <main class="page narrow">
            <LoadErrorMessage error={error} onRetry={() => location.reload()} />
          </main>
        ) : (
          <p class="boot">Loading document…</p>
        )}
      </>
    );
  }

  const own = viewed === me.id;
  const annotation = data.annotations.find((a) => a.annotator.id === viewed) ?? null;
  const pick = (annotator: number) => {
    history.pushState(null, "", paths.document(id, annotator));
    setRequested(annotator);
  };
  const switcher = staff ? <AnnotatorSwitch options={options} value={viewed} onChange={pick} /> : undefined;
  if ((data.doc as DocumentKind).project_kind === "items") {
    return <ItemPage key={`${id}/${viewed ?? "none"}`} me={me} docId={id} viewed={viewed} own={own} switcher={switcher} />;
  }
  return (
    <Workspace
      key={`${id}/${viewed ?? "none"}`}
      me={me}
      doc={data.doc}
      project={data.project}
      annotation={annotation}
      own={own}
      viewedName={options.find((o) => o.id === viewed)?.username}
      switcher={switcher}
    />
  );
}
