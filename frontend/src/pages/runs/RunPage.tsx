import { Crumbs } from "../../components/Crumbs";
import { JsonView } from "../../components/JsonView";
import { LoadErrorMessage } from "../../components/PageMessage";
import { RunProgress } from "../../components/RunProgress";
import { TopBar } from "../../components/TopBar";
import { useProject } from "../../hooks/useProject";
import { usePoll, useResource } from "../../hooks/useResource";
import { isActive } from "../../lib/format";
import { paths } from "../../router";
import type { Me, Run, RunDetail } from "../../types";
import { RequestsTable } from "./RequestsTable";
import { RunActions } from "./RunActions";
import { RunHeader } from "./RunHeader";
import { ScoresTable } from "./ScoresTable";
import { ShardsTable } from "./ShardsTable";

const POLL_MS = 1000;

export function RunPage({ me, id }: { me: Me; id: number }) {
  const run = useResource<RunDetail>(`/api/evaluation/runs/${id}/`);
  const data = run.data;
  const project = useProject(data?.project);
  const active = !!data && isActive(data.status);
  usePoll(active, run.reload, POLL_MS);

  const onChanged = (r: Partial<Run>) => {
    if (data) {
      const { shards: _count, ...rest } = r;
      run.setData({ ...data, ...rest });
    }
    void run.reload();
  };

  const crumbs = data ? (
    <Crumbs
      items={[
        { label: project?.name ?? `Project ${data.project}`, href: paths.project(data.project) },
        { label: "Runs", href: paths.runs(data.project) },
        { label: data.name },
      ]}
    />
  ) : (
    <Crumbs items={[{ label: "Run" }]} />
  );

  return (
    <>
      <TopBar me={me}>{crumbs}</TopBar>
      <main class="page wide" data-testid="run-page" data-run-id={id} data-status={data?.status}>
        {run.error && !data && <LoadErrorMessage error={run.error} onRetry={() => void run.reload()} />}
        {!data && !run.error && <p class="muted">Loading…</p>}
        {data && (
          <>
            <RunHeader run={data} />
            <div class="run-progress-row panel">
              {data.imported && !data.total ? <span class="muted">Imported outputs: nothing was generated here.</span> : <RunProgress run={data} />}
              <RunActions run={data} onChanged={onChanged} />
            </div>
            {run.error && (
              <p class="form-error" role="alert">
                Could not refresh: {run.error.message}
              </p>
            )}
            {data.status === "failed" && data.error && (
              <section class="run-error" aria-label="Error">
                <h2>Error</h2>
                <pre class="code error-pre" data-testid="run-error">
                  {data.error}
                </pre>
              </section>
            )}
            {(data.status === "done" || (data.scores?.length ?? 0) > 0) && (
              <section class="run-scores" aria-labelledby="scores-title">
                <h2 id="scores-title">Scores</h2>
                <ScoresTable scores={data.scores ?? []} />
              </section>
            )}
            <div class="json-row">
              {Array.isArray(data.shards) && data.shards.length > 0 && (
                <details class="json-view" open={data.shards.some((s) => !!s.error)} data-testid="run-shards-details">
                  <summary>Shards ({data.shards.length})</summary>
                  <ShardsTable shards={data.shards} />
                </details>
              )}
              <JsonView title="Configuration" value={{ model: data.model_name, ...(data.config as Record<string, unknown>) }} testId="run-config" />
              <JsonView title="Environment" value={data.environment} testId="run-environment" />
            </div>
            <RequestsTable runId={data.id} refreshKey={`${data.status}:${data.done}`} />
          </>
        )}
      </main>
    </>
  );
}
