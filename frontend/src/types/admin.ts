// Shapes of the project-admin API: taxonomies, projects, imports, members,
// assignment and progress.

import type { Project } from "./annotations";

export interface TaxonomyInfo {
  id: number;
  name: string;
  version: string;
  title: string;
  type_count: number;
}

export interface TaxonomyPreset {
  name: string;
  title: string;
  installed_id: number | null;
}

/** A built-in form of item projects (FLUB, SmartyPat, ArgBench). */
export interface FormPreset {
  name: string;
  title: string;
  /** The taxonomy preset a new project of it uses. */
  taxonomy: string;
  /** The import format its items come in ("items": a column mapping). */
  format: string;
  form: ItemForm;
}

export interface TaxonomyList {
  taxonomies: TaxonomyInfo[];
  presets: TaxonomyPreset[];
  form_presets?: FormPreset[];
}

/** Project.form of an item project (annotations.items). */
export interface ItemForm {
  fields: { name: string; kind: string; title?: string; [key: string]: unknown }[];
  aggregate?: "macro" | "geometric";
}

/** GET /api/projects/<id>/ with the issue-10 fields. */
export interface ProjectAdminDetail extends Project {
  archived: boolean;
  annotators_per_document: number;
  taxonomy_id?: number;
  form?: ItemForm | Record<string, never>;
}

export type ImportFormat = "mafalda" | "doccano" | "text" | "csv" | "labelstudio" | "hf" | "flub" | "smartypat" | "items";

/** The roles of an items file's columns (formats/item_columns.py). */
export type ItemRole = "text" | "id" | "options" | "answer" | "label" | "labels" | "detection" | "segments" | "reference" | "candidate";
export type ImportStatus = "queued" | "running" | "succeeded" | "failed";

export interface ImportProblem {
  line: number | null;
  field: string | null;
  message: string;
  /** "LINE: FIELD: message" (or "LINE: message"). */
  text: string;
}

export interface ImportReport {
  texts?: number;
  documents_created?: number;
  documents_reused?: number;
  sentences?: number;
  spans?: number;
  skipped_to_clean?: number;
  [key: string]: unknown;
}

export interface ImportJob {
  id: number;
  project: number;
  format: ImportFormat | string;
  file_name: string;
  size: number;
  status: ImportStatus;
  lines_total: number;
  lines_done: number;
  report: ImportReport;
  errors: ImportProblem[];
  created_at: string;
  started_at: string | null;
  finished_at: string | null;
  /** Label Studio imports that invited annotators: the links, only in the upload's answer. */
  invitations?: { email: string; link: string; sent: boolean }[];
}

export interface CsvInspection {
  columns: string[];
  rows: number;
  sample: string[][];
}

export type Role = "admin" | "reviewer" | "annotator";

export interface Member {
  id: number;
  /** email: only in one's own row (every row for a superuser). */
  user: { id: number; username: string; email?: string };
  role: Role;
  assigned: number;
  in_progress: number;
  submitted: number;
}

export interface Invitation {
  id: number;
  role: Role;
  email: string;
  created_by: string | null;
  created_at: string;
  expires_at: string;
}

/** A new invitation: its single-use link is shown only in this reply. */
export interface NewInvitation extends Invitation {
  link: string;
  sent: boolean;
}

/** What an invitation link offers its holder. */
export interface InvitationOffer {
  project: string;
  role: Role;
  expires_at: string;
  signed_in_as: string | null;
  member: boolean;
}

export interface NewAccount {
  id: number;
  username: string;
  email: string;
}


export type DocumentScope = "all" | "unassigned" | "sample" | "selected" | "matching";

export interface AssignResult {
  created: number;
  documents: number;
  annotators: { id: number; username: string; assigned: number }[];
}

/** A 409 of unassign/reassign: the annotator has work on these documents. */
export interface WorkInProgress {
  detail: string;
  documents: number[];
}
