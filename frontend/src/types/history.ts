// GET /api/documents/<id>/history/ (annotations/api/gold_views.py).

export interface HistoryEntry {
  at: string;
  user: string | null;
  kind: "annotation" | "span" | "gold_document" | "gold_span";
  object_id: number;
  action: "created" | "changed" | "deleted";
  owner: string;
  /** The text of a span's range (spans and gold spans), shortened. */
  excerpt: string | null;
  changes: { field: string; before: unknown; after: unknown }[];
}

export interface History {
  results: HistoryEntry[];
}
