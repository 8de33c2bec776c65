// Start the document page's request as soon as the script runs (in parallel with the
// session check), so the page needs two round trips after the bundle, not three. One call
// (GET /api/documents/ID/open/) gives the document and the annotations I may read.
// Opening a document only reads: its annotation is created with the first saved change.

import { get } from "./api";
import type { DocumentAnnotation, DocumentDetail, Project } from "./types";

export interface DocumentBundle {
  doc: Promise<DocumentDetail>;
  /** Staff: every annotation of the document; annotators: their own (0 or 1). */
  annotations: Promise<DocumentAnnotation[]>;
  project: Promise<Project>;
}

const pending = new Map<number, DocumentBundle>();
const projects = new Map<number, Promise<Project>>();

function quiet<T>(p: Promise<T>): Promise<T> {
  p.catch(() => undefined); // consumers handle errors; avoid "unhandled rejection" noise
  return p;
}

export function projectDetail(id: number, fresh = false): Promise<Project> {
  let p = projects.get(id);
  if (!p || fresh) {
    p = quiet(get<Project>(`/api/projects/${id}/`));
    projects.set(id, p);
    p.catch(() => projects.delete(id));
  }
  return p;
}

/** GET /api/documents/ID/open/: the document and, in the same call, its annotations. */
export type OpenedDocument = DocumentDetail & { annotations: DocumentAnnotation[] };

export function openDocumentUrl(id: number): string {
  return `/api/documents/${id}/open/`;
}

export function prefetchDocument(id: number): void {
  if (pending.has(id)) return;
  const opened = quiet(get<OpenedDocument>(openDocumentUrl(id)));
  pending.set(id, {
    doc: quiet(opened.then(({ annotations: _, ...doc }) => doc as DocumentDetail)),
    annotations: quiet(opened.then((d) => d.annotations)),
    project: quiet(opened.then((d) => projectDetail(d.project))),
  });
}

/** The prefetched requests for a document (started now if they were not), used once. */
export function takeDocument(id: number): DocumentBundle {
  prefetchDocument(id);
  const bundle = pending.get(id)!;
  pending.delete(id);
  return bundle;
}

export function clearPrefetch(): void {
  pending.clear();
  projects.clear();
}
