// One generation job: its progress and report, its items to review, and publishing.

import type { ComponentChildren } from "preact";
import { Crumbs } from "../../components/Crumbs";
import { LoadErrorMessage } from "../../components/PageMessage";
import { TopBar } from "../../components/TopBar";
import { usePoll, useResource } from "../../hooks/useResource";
import { paths } from "../../router";
import type { GeneratedItem, GenerationJob, Me } from "../../types";
import { fixed, percent } from "./logic";
import { Releases } from "./Releases";
import { ReviewList } from "./ReviewList";

const POLL_MS = 1500;

/** One generation job: its progress and report, its items to review, and publishing. */
export function GenerationJobPage({ me, id }: { me: Me; id: number }) {
  const job = useResource<GenerationJob>(`/api/evaluation/generation-jobs/${id}/`);
  const items = useResource<GeneratedItem[]>(`/api/evaluation/generation-jobs/${id}/items/`);
  const active = job.data?.status === "queued" || job.data?.status === "running";
  usePoll(active, async () => {
    await job.reload();
    await items.reload();
  }, POLL_MS);

  if (job.error && !job.data) return <Frame me={me} id={id}>{<LoadErrorMessage error={job.error} onRetry={() => void job.reload()} />}</Frame>;
  const j = job.data;
  if (!j) return <Frame me={me} id={id}>{<p class="muted">Loading…</p>}</Frame>;
  const report = (j.report ?? {}) as { judge?: { mean: number | null; share: Record<string, number>; judgements: number; unparseable: number } };
  return (
    <Frame me={me} id={id}>
      <div class="page-head">
        <div>
          <h1>
            Generation job #{j.id}: {j.type} · {j.method}
          </h1>
          <p class="muted">
            {j.project_name} · {j.backend}:{j.model_name} · rule v{j.rule_version} · n = {j.n}
          </p>
        </div>
      </div>
      <section class="panel" data-testid="generation-progress">
        <div class="panel-head">
          <h2>Progress</h2>
        </div>
        <p data-testid="generation-status">
          Status: <strong>{j.status}</strong>
          {j.stage ? ` (${j.stage})` : ""}
        </p>
        {j.error && (
          <p class="form-error" role="alert">
            {j.error}
          </p>
        )}
        <ul>
          {j.method === "prolog" && (
            <>
              <li>
                Facts proposed {j.proposed}, valid {j.valid}, rejected {j.rejected}
                {Object.keys(j.rejections).length > 0 && ` (${Object.entries(j.rejections).map(([k, v]) => `${k} ${v}`).join(", ")})`}
              </li>
              <li>Combinations satisfying the rule: {j.satisfying}</li>
            </>
          )}
          <li>Items kept: {j.items_kept}</li>
          {report.judge && (
            <li>
              Judge: mean {fixed(report.judge.mean)}; scores 0/1/2/3: {[0, 1, 2, 3].map((k) => percent(report.judge?.share[String(k)])).join(" / ")} ({report.judge.judgements} judgements, {report.judge.unparseable} unreadable)
            </li>
          )}
          <li>
            Requests sent {j.requests_sent}, from the cache {j.from_cache}
          </li>
          <li>
            Reviewed: {j.review.accepted} accepted, {j.review.rejected} rejected, {j.review.pending} pending
          </li>
        </ul>
        {j.status === "done" && j.items_kept === 0 && <p class="muted">No item was kept{j.method === "prolog" && j.valid === 0 ? ": the model gave no valid fact." : "."}</p>}
      </section>
      <ReviewList items={items.data ?? []} onChange={() => void Promise.all([items.reload(), job.reload()])} />
      <Releases me={me} projectId={j.project} />
    </Frame>
  );
}

function Frame({ me, id, children }: { me: Me; id: number; children: ComponentChildren }) {
  return (
    <>
      <TopBar me={me}>
        <Crumbs items={[{ label: "Generation", href: paths.generation() }, { label: `Job ${id}` }]} />
      </TopBar>
      <main class="page wide" data-testid="generation-job-page">
        {children}
      </main>
    </>
  );
}
