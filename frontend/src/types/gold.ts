// Shapes of the gold versions API (annotations/api/gold_views.py).

export interface DiffSummary {
  added: number;
  removed: number;
  changed: number;
  documents_added?: number;
  documents_removed?: number;
}

export interface VersionRow {
  id: number;
  version: number;
  status: string;
  note: string;
  source: string;
  published_at: string | null;
  published_by: string | null;
  documents: number;
  spans: number;
  summary: DiffSummary;
}

export interface GoldOverview {
  draft: { id: number; version: number; based_on: number | null; documents: number; spans: number; created_at: string; created_by: string | null } | null;
  versions: VersionRow[];
}

export interface DiffSpan {
  document: number;
  document_name: string;
  start: number;
  end: number;
  text: string;
  labels: string[];
}

export interface ChangedSpan {
  document: number;
  document_name: string;
  start: number;
  end: number;
  text: string;
  before: string[];
  after: string[];
}

export interface VersionDetail extends Omit<VersionRow, "summary"> {
  created_by: string | null;
  based_on: number | null;
  diff: { previous: number | null; summary: DiffSummary; added: DiffSpan[]; removed: DiffSpan[]; changed: ChangedSpan[] };
}
