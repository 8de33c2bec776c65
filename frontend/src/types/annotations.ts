// Shapes of the REST API (annotations/api).

export const NO_FALLACY = "no fallacy";

/** What kind of work a project's documents are: span annotation or answering an item's form. */
export type ProjectKind = "spans" | "items";

export interface Me {
  id: number;
  username: string;
  is_staff: boolean;
  is_superuser?: boolean;
  can_create_projects?: boolean;
  projects: { id: number; name: string; role: string; archived?: boolean }[];
}

export interface Progress {
  done: number;
  total: number;
}

export interface ProjectSummary {
  id: number;
  name: string;
  description: string;
  role: string;
  taxonomy: number;
  progress: Progress;
  archived?: boolean;
  annotators_per_document?: number;
}

export interface TaxonomyType {
  name: string;
  aliases: string[];
  definition: string;
  template: string;
  slots: string[];
  example: string;
}

export interface TaxonomyCategory {
  name: string;
  definition: string;
  types: TaxonomyType[];
}

export interface Taxonomy {
  id: number;
  name: string;
  version: string;
  title: string;
  description: string;
  categories: TaxonomyCategory[];
}

export interface Project {
  id: number;
  name: string;
  description: string;
  guidelines: string;
  role: string;
  taxonomy: Taxonomy;
  progress: Progress;
  archived?: boolean;
  annotators_per_document?: number;
  /** "spans" (span-annotated texts) or "items" (texts answered through a form). */
  kind?: ProjectKind;
  /** Span projects: template slots required (submit refuses empty ones), optional or off. */
  justification_templates?: "required" | "optional" | "off";
}

export interface Page<T> {
  count: number;
  next: string | null;
  previous: string | null;
  results: T[];
}

export interface DocumentSummary {
  id: number;
  external_id: string;
  position: number;
  status: "todo" | "in_progress" | "submitted";
}

export interface Sentence {
  index: number;
  start: number;
  end: number;
}

export interface DocumentDetail {
  id: number;
  project: number;
  external_id: string;
  text: string;
  sentences: Sentence[];
  /** Readable name (external id, else the first words). */
  name?: string;
  /** My status of this document when it is assigned to me (null/absent: not assigned). */
  my_status?: "todo" | "in_progress" | "submitted" | null;
}

export interface LabelDetail {
  slots: Record<string, string>;
  explanation: string;
}

export type Details = Record<string, LabelDetail>;

export interface ServerSpan {
  id: number;
  client_id: string | null;
  start: number;
  end: number;
  labels: string[];
  details: Details;
  revision: number;
}

export interface Annotation {
  id: number;
  document: number;
  annotator: number | string;
  status: "in_progress" | "submitted";
  revision: number;
  comments: unknown;
  submitted_at: string | null;
  spans: ServerSpan[];
}
