// Shapes of the adjudication API (annotations/api/gold_views.py).

export interface SpanDetails {
  slots?: Record<string, string>;
  explanation?: string;
}

export interface AdjSpan {
  id?: number;
  start: number;
  end: number;
  labels: string[];
  details?: Record<string, SpanDetails>;
  proposed_by?: Record<string, number[]>;
}

export interface AnnotatorWork {
  id: number;
  username: string;
  status: string;
  spans: AdjSpan[];
}

export interface GoldState {
  revision: number;
  adjudicated: boolean;
  spans: AdjSpan[];
  comments: unknown[];
}

export interface Proposal {
  start: number;
  end: number;
  labels: string[];
  proposed_by: Record<string, number[]>;
  unanimous: boolean;
}

export interface Adjudication {
  document: { id: number; name: string; project: number; text: string; sentences: [number, number][] };
  annotators: AnnotatorWork[];
  draft: { id: number; version: number } | null;
  gold: GoldState;
  proposals: Proposal[];
  previous: { version: number; spans: AdjSpan[] } | null;
}

export interface QueueRow {
  document: { id: number; name: string; position: number; length: number };
  annotators: number;
  sort_key: number | null;
  adjudicated: boolean;
}

export interface Queue {
  count: number;
  /** Documents without a decision yet (they come first). */
  undecided: number;
  agreement: { status: string };
  results: QueueRow[];
}

/** A document's place in the adjudication queue (GET /api/documents/ID/adjudication/neighbours/). */
export interface AdjudicationNeighbours {
  queue: "adjudication";
  /** From 1; null when the document is not in the queue (then `next` is the queue's first). */
  position: number | null;
  total: number;
  previous: { id: number; name: string } | null;
  next: { id: number; name: string } | null;
}
