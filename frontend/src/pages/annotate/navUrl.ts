// The neighbours request of the document page's previous / next, with the reviewer's
// annotator filter when there is one.

/** GET /api/documents/ID/neighbours/, with ?annotator=ID when a reviewer reads one annotator. */
export function neighboursUrl(docId: number, annotator: number | null): string {
  return `/api/documents/${docId}/neighbours/${annotator ? `?annotator=${annotator}` : ""}`;
}
