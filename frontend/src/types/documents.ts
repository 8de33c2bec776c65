// Shapes of the project work API: the document list, progress, a document's annotations
// (GET /api/projects/<id>/documents/, /progress/, GET /api/documents/<id>/annotations/).

import type { ProjectKind, ServerSpan } from "./annotations";

/** An annotator's own status of a document (null: not assigned to them). */
export type MyStatus = "todo" | "in_progress" | "submitted";
/** A document's project-level status (one definition: done = N annotators submitted). */
export type ProjectStatus = "unassigned" | "todo" | "in_progress" | "done";

export interface DocumentAnnotator {
  id: number;
  username: string;
  status: MyStatus;
}

export interface DocumentListItem {
  id: number;
  name: string;
  external_id: string;
  position: number;
  length: number;
  updated_at: string | null;
  /** Staff: the project-level status; annotators: their own (= my_status). */
  status: ProjectStatus | MyStatus;
  my_status: MyStatus | null;
  // staff only
  assigned?: number;
  in_progress?: number;
  submitted?: number;
  annotators?: DocumentAnnotator[];
}

export interface ProgressTotals {
  documents: number;
  done: number;
  in_progress: number;
  todo: number;
  unassigned: number;
  assignments: number;
  submitted: number;
}

export interface AnnotatorProgress {
  id: number;
  username: string;
  assigned: number;
  in_progress: number;
  submitted: number;
  last_active: string | null;
}

export interface ProjectProgress {
  role: string;
  annotators_per_document: number;
  totals: ProgressTotals;
  annotators: AnnotatorProgress[];
}

/** One annotation of a document, with its annotator (GET /api/documents/<id>/annotations/). */
export interface DocumentAnnotation {
  id: number;
  annotator: { id: number; username: string };
  status: "in_progress" | "submitted";
  revision: number;
  updated_at: string | null;
  submitted_at: string | null;
  spans: ServerSpan[];
}

// ---- item projects (GET /api/documents/<id>/response/) ---------------------------------

/** The document API's kind of the document's project (absent from older servers: spans). */
export interface DocumentKind {
  project_kind?: ProjectKind;
}

export type ItemFieldKind =
  | "multiple-choice"
  | "classification"
  | "ranked"
  | "detection"
  | "segmentation"
  | "free-text"
  | "likert"
  | "rubric";

export interface ItemLabel {
  name: string;
  definition: string;
}

export interface RubricExample {
  score: number;
  text: string;
  why?: string;
}

export interface ItemField {
  name: string;
  kind: ItemFieldKind;
  title: string;
  help: string;
  labels: ItemLabel[];
  /** ranked: how many labels may be ranked; likert/rubric: the top score. */
  max?: number;
  /** likert/rubric: the lowest score. */
  min?: number;
  description?: string;
  anchors?: Record<string, string>;
  criteria?: string | string[] | Record<string, string>;
  examples?: RubricExample[];
}

/** A segment of the item text: [start, end, label]. */
export type Segment = [number, number, string];

/** One answer; its shape depends on the field kind (annotations/items.py). */
export type ItemAnswer = string | string[] | boolean | number | Segment[];

export type ItemResponse = Record<string, ItemAnswer>;

export interface ItemAnnotation {
  id: number;
  annotator: { id: number; username: string };
  status: "in_progress" | "submitted";
  revision: number;
  response: ItemResponse;
  submitted_at: string | null;
  updated_at: string;
}

export interface ItemState {
  document: {
    id: number;
    project: number;
    name: string;
    external_id: string;
    text: string;
    options: Record<string, string>;
    candidate: string | null;
  };
  project: { id: number; name: string; kind: ProjectKind; archived: boolean; role: string | null };
  form: { aggregate: string; fields: ItemField[] };
  /** The response shown (null: not started yet). */
  annotation: ItemAnnotation | null;
  /** Reviewers and admins only: the answer key. */
  gold?: ItemResponse;
}

/** A neighbour of a document in my queue (GET /api/documents/ID/neighbours/). */
export interface DocumentNeighbour {
  id: number;
  name: string;
  external_id: string;
}

/** Where a document sits in my queue: my assigned documents, or the project's (staff). */
export interface DocumentNeighbours {
  queue: "assigned" | "project" | "annotator";
  position: number;
  total: number;
  previous: DocumentNeighbour | null;
  next: DocumentNeighbour | null;
}
