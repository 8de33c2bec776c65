// Shapes of the project work API: the document list, progress, a document's annotations
// (GET /api/projects/<id>/documents/, /progress/, GET /api/documents/<id>/annotations/).

import type { ServerSpan } from "../types";

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
