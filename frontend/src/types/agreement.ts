// Shapes of GET /api/evaluation/projects/<id>/agreement/ (evaluation/api_agreement.py).

// Every figure entry records where it comes from (evaluation/agreement_jobs.py).
export interface Provenance {
  metric: string;
  library: string;
  level: number;
}

export interface AlphaFigure extends Provenance {
  distance: string;
  value: number | null;
  units: number;
  annotators: number;
  documents: number;
}

export interface LevelFigures {
  alpha: Record<"masi" | "jaccard", AlphaFigure>;
  pairwise_alpha: (Provenance & { a: number; b: number; masi: number | null; jaccard: number | null; units: number })[];
  labels: (Provenance & { label: string; alpha: number | null; units: number; present: number; distance: string })[];
  cohen_kappa: (Provenance & { a: number; b: number; kappa: number | null; units: number })[];
  fleiss_kappa: Provenance & { value: number | null; units: number; reason: string | null };
  f1: (Provenance & {
    profile: "paper";
    reference: number | "gold";
    scored: number;
    precision: number;
    recall: number;
    f1: number;
    documents: number;
  })[];
  cooccurrence: Provenance & { labels: string[]; counts: number[][] };
  distribution: Provenance & { labels: string[]; annotators: Record<string, number[]> };
}

export interface AgreementAnswer {
  status: "done" | "computing" | "failed";
  key: string;
  error?: string;
  computed_at?: string;
  hash?: string;
  libraries?: Record<string, string>;
  annotators?: { id: number; username: string }[];
  documents?: number;
  gold_standard?: { id: number; version: number } | null;
  levels?: Record<string, LevelFigures>;
}

export interface GoldList {
  versions: { id: number; version: number; published_at: string | null }[];
}
