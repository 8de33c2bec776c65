// Whose annotation the document page shows: an annotator their own (editable until
// submitted); reviewers and admins anyone's, read-only, picked by a switch (?annotator=).

import type { DocumentAnnotation, DocumentDetail, Me } from "../../types";

export interface SwitchOption {
  id: number;
  username: string;
  status: "in_progress" | "submitted" | "not_started";
  mine: boolean;
}

export interface ViewInput {
  me: Me;
  staff: boolean;
  doc: DocumentDetail;
  annotations: DocumentAnnotation[];
  /** ?annotator=<user id> from the URL. */
  requested: number | null;
}

/** Staff may annotate a document themselves only when it is assigned to them (or they started). */
export function canAnnotateOwn({ me, staff, doc, annotations }: ViewInput): boolean {
  if (!staff) return true;
  return annotations.some((a) => a.annotator.id === me.id) || (doc.my_status ?? null) !== null;
}

/** The annotators the switch lists: each one with an annotation, and me when I may annotate. */
export function switchOptions(input: ViewInput): SwitchOption[] {
  const { me, annotations } = input;
  const out: SwitchOption[] = annotations.map((a) => ({
    id: a.annotator.id,
    username: a.annotator.username,
    status: a.status,
    mine: a.annotator.id === me.id,
  }));
  if (canAnnotateOwn(input) && !out.some((o) => o.mine)) {
    out.unshift({ id: me.id, username: me.username, status: "not_started", mine: true });
  }
  return out;
}

/** The user id whose annotation is shown (null: nobody has started the document). */
export function chooseAnnotator(input: ViewInput): number | null {
  if (!input.staff) return input.me.id;
  const options = switchOptions(input);
  if (input.requested !== null && options.some((o) => o.id === input.requested)) return input.requested;
  const mine = options.find((o) => o.mine);
  if (mine) return mine.id;
  const submitted = options.find((o) => o.status === "submitted");
  return (submitted ?? options[0])?.id ?? null;
}

export function requestedAnnotator(search: string): number | null {
  const raw = new URLSearchParams(search).get("annotator");
  const n = raw ? Number(raw) : NaN;
  return Number.isInteger(n) && n > 0 ? n : null;
}
