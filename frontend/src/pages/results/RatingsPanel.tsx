// The rating fields of an item project (likert, rubric): the raters' agreement
// (Krippendorff's α, interval and ordinal) and, for a chosen judge run, Spearman's ρ
// between the mean human rating of each item and the judge's score.

import { useState } from "preact/hooks";
import { LoadErrorMessage } from "../../components/PageMessage";
import { useResource } from "../../hooks/useResource";
import { formatScore } from "../../lib/format";
import type { Page, Run } from "../../types";
import { listOf } from "../admin/shared/list";

interface Correlation {
  rho: number | null;
  p: number | null;
  n: number;
}

interface RatingField {
  name: string;
  kind: string;
  title: string;
  min: number;
  max: number;
  raters: number;
  ratings: number;
  rated_items: number;
  alpha: Record<string, number | null>;
  judge?: Correlation;
}

export interface RatingStats {
  items: number;
  raters: number;
  fields: RatingField[];
  judge_run?: { id: number; name: string };
}

export function RatingsPanel({ projectId }: { projectId: number }) {
  const [judge, setJudge] = useState("");
  const stats = useResource<RatingStats>(`/api/evaluation/projects/${projectId}/ratings/${judge ? `?judge_run=${judge}` : ""}`);
  const runs = useResource<Run[] | Page<Run>>(`/api/evaluation/runs/?project=${projectId}&status=done&limit=100`);
  const judges = runs.data ? listOf(runs.data).filter((r) => r.task.startsWith("judge")) : [];
  if (stats.error && !stats.data) return <LoadErrorMessage error={stats.error} onRetry={() => void stats.reload()} />;
  const data = stats.data;
  if (!data || data.fields.length === 0) return null;
  return (
    <section class="panel ratings-panel" aria-labelledby="ratings-title" data-testid="ratings-panel">
      <div class="section-head">
        <h2 id="ratings-title">Human ratings</h2>
        <label class="inline-field">
          Judge run{" "}
          <select value={judge} onChange={(e) => setJudge((e.target as HTMLSelectElement).value)} data-testid="ratings-judge">
            <option value="">none</option>
            {judges.map((r) => (
              <option key={r.id} value={String(r.id)}>
                {r.name}
              </option>
            ))}
          </select>
        </label>
      </div>
      <p class="muted small">
        {data.raters} {data.raters === 1 ? "rater" : "raters"} over {data.items} items. Agreement is Krippendorff's α over the submitted ratings (the krippendorff package); the correlation is Spearman's ρ between each item's mean human rating and the judge's score (scipy).
      </p>
      <div class="table-wrap">
        <table class="table compact" data-testid="ratings-table">
          <thead>
            <tr>
              <th scope="col">Field</th>
              <th scope="col">Scale</th>
              <th scope="col">Raters</th>
              <th scope="col">Ratings</th>
              <th scope="col">Items rated</th>
              {/* no capitals: an upper-case α reads as A, ρ as P */}
              <th scope="col" class="no-caps">
                α interval
              </th>
              <th scope="col" class="no-caps">
                α ordinal
              </th>
              {judge && (
                <th scope="col" class="no-caps">
                  ρ with the judge (p, n)
                </th>
              )}
            </tr>
          </thead>
          <tbody>
            {data.fields.map((f) => (
              <tr key={f.name} data-field={f.name} data-testid="ratings-row">
                <th scope="row">{f.title || f.name}</th>
                <td>
                  {f.min}–{f.max} ({f.kind})
                </td>
                <td>{f.raters}</td>
                <td>{f.ratings}</td>
                <td>{f.rated_items}</td>
                <td data-testid="alpha-interval">{formatScore(f.alpha.interval, 3)}</td>
                <td data-testid="alpha-ordinal">{formatScore(f.alpha.ordinal, 3)}</td>
                {judge && (
                  <td data-testid="judge-rho">
                    {f.judge ? `${formatScore(f.judge.rho, 3)} (p ${formatScore(f.judge.p, 3)}, n ${f.judge.n})` : "—"}
                  </td>
                )}
              </tr>
            ))}
          </tbody>
        </table>
      </div>
    </section>
  );
}
