// Previous / next document of my queue on the document page (span and item projects): two
// links and the keys [ and ], in the queue's order (GET /api/documents/ID/neighbours/),
// whether the document is submitted or not. A reviewer reading one annotator's work
// (?annotator=) walks that annotator's documents and keeps the filter.

import { useEffect, useRef } from "preact/hooks";
import { useResource } from "../../hooks/useResource";
import { linkHandler, navigate, paths } from "../../router";
import type { DocumentNeighbour, DocumentNeighbours } from "../../types";
import { docNavKey } from "./keys";
import { neighboursUrl } from "./navUrl";
import { requestedAnnotator } from "./view";
import { isTyping } from "./spans";

const label = (n: DocumentNeighbour) => n.name || n.external_id || `Document ${n.id}`;

/** "← Previous" with the word in its own span: a narrow top bar shows only the arrow. */
const words = (text: string) => {
  const [arrowFirst, word] = text.startsWith("←") ? ["←", text.slice(1).trim()] : [null, text.replace("→", "").trim()];
  return arrowFirst ? (
    <>
      ← <span class="nav-word">{word}</span>
    </>
  ) : (
    <>
      <span class="nav-word">{word}</span> →
    </>
  );
};

/** One instance per document and filter (keyed), so nothing of the previous neighbours stays. */
export function DocumentNav({ docId }: { docId: number }) {
  const annotator = requestedAnnotator(location.search);
  return <NeighbourLinks key={`${docId}/${annotator ?? ""}`} docId={docId} annotator={annotator} />;
}

function NeighbourLinks({ docId, annotator }: { docId: number; annotator: number | null }) {
  const { data } = useResource<DocumentNeighbours>(neighboursUrl(docId, annotator));
  // the filter travels with every previous / next document
  const to = (id: number) => paths.document(id, annotator ?? undefined);
  // the neighbours for the key listener, set while rendering: an effect would run only after
  // the paint, so a key pressed as soon as the position shows would find none
  const shown = useRef<DocumentNeighbours | null>(null);
  shown.current = data;

  useEffect(() => {
    const onKey = (e: KeyboardEvent) => {
      const neighbours = shown.current;
      if (e.defaultPrevented || !neighbours) return;
      const dialog = document.querySelector("dialog[open]") !== null;
      const delta = docNavKey(e, { typing: isTyping(e.target), dialog });
      if (!delta) return;
      e.preventDefault();
      const to = delta === -1 ? neighbours.previous : neighbours.next;
      if (to) navigate(paths.document(to.id, annotator ?? undefined));
    };
    window.addEventListener("keydown", onKey);
    return () => window.removeEventListener("keydown", onKey);
  }, [annotator]);

  if (!data) return null;
  const where = data.queue === "assigned" ? "your queue" : data.queue === "annotator" ? "this annotator's documents" : "the project";
  const link = (n: DocumentNeighbour | null, rel: "prev" | "next", text: string, key: string) =>
    n ? (
      <a class="btn ghost small" rel={rel} href={to(n.id)} onClick={linkHandler(to(n.id))} title={`${label(n)} (key ${key})`} aria-label={`${rel === "prev" ? "Previous" : "Next"} document: ${label(n)}`} data-testid={`doc-${rel}`}>
        {words(text)} <kbd>{key}</kbd>
      </a>
    ) : (
      <span class="btn ghost small disabled" aria-disabled="true" title={`No ${rel === "prev" ? "previous" : "next"} document in ${where}`} data-testid={`doc-${rel}`}>
        {words(text)} <kbd>{key}</kbd>
      </span>
    );
  return (
    <nav class="doc-nav" aria-label="Documents of your queue" data-testid="doc-nav">
      {link(data.previous, "prev", "← Previous", "[")}
      <span class="doc-nav-pos muted small" title={`Document ${data.position} of ${data.total} in ${where}`} data-testid="doc-position">
        {data.position} / {data.total}
      </span>
      {link(data.next, "next", "Next →", "]")}
    </nav>
  );
}
