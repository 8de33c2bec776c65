import { useState } from "preact/hooks";
import { Crumbs } from "../../components/Crumbs";
import { LoadErrorMessage } from "../../components/PageMessage";
import { Pager } from "../../components/Pager";
import { ProjectNav } from "../../components/ProjectNav";
import { TopBar } from "../../components/TopBar";
import { usePoll, useResource } from "../../hooks/useResource";
import { useProject } from "../../hooks/useProject";
import { isActive } from "../../lib/format";
import { queryString } from "../../lib/paging";
import { linkHandler, paths } from "../../router";
import type { LaunchOptions, Me, Page, Run } from "../../types";
import { LeaderboardLinks, goldLinks } from "./LeaderboardLinks";
import { RunsTable } from "./RunsTable";

const PAGE_SIZE = 50;
const POLL_MS = 2000;

export function RunsPage({ me, projectId }: { me: Me; projectId: number }) {
  const [offset, setOffset] = useState(0);
  const project = useProject(projectId);
  const runs = useResource<Page<Run>>(`/api/evaluation/runs/${queryString({ project: projectId, limit: PAGE_SIZE, offset })}`);
  // Reviewers may be refused launch options: then there is no launch button, nothing else.
  const options = useResource<LaunchOptions>(`/api/evaluation/launch-options/${queryString({ project: projectId })}`);
  usePoll(!!runs.data?.results.some((r) => isActive(r.status)), runs.reload, POLL_MS);

  const canLaunch = options.data?.can_launch === true;
  const fatal = runs.error && !runs.data ? runs.error : null;

  return (
    <>
      <TopBar me={me}>
        <Crumbs items={[{ label: project?.name ?? `Project ${projectId}`, href: paths.project(projectId) }, { label: "Runs" }]} />
      </TopBar>
      <ProjectNav me={me} projectId={projectId} role={project?.role} active="runs" />
      <main class="page wide" data-testid="runs-page">
        {fatal ? (
          <LoadErrorMessage error={fatal} onRetry={() => void runs.reload()} />
        ) : (
          <>
            <div class="page-head">
              <div>
                <h1>Model runs</h1>
                <p class="muted">{project ? project.name : "\u00a0"}</p>
              </div>
              {canLaunch && (
                <a class="btn primary" href={paths.launch(projectId)} onClick={linkHandler(paths.launch(projectId))} data-testid="launch-run">
                  Launch a run
                </a>
              )}
            </div>
            <LeaderboardLinks projectId={projectId} golds={goldLinks(options.data?.gold_standards, runs.data?.results)} />
            {runs.error && runs.data && (
              <p class="form-error" role="alert">
                Could not refresh: {runs.error.message}
              </p>
            )}
            {!runs.data && <p class="muted">Loading…</p>}
            {runs.data && runs.data.count === 0 && (
              <div class="empty" data-testid="runs-empty">
                <p>No runs in this project yet.</p>
                {canLaunch && <p class="muted">Launch one to evaluate a model against a gold version.</p>}
              </div>
            )}
            {runs.data && runs.data.results.length > 0 && (
              <>
                <RunsTable runs={runs.data.results} />
                <Pager count={runs.data.count} offset={offset} limit={PAGE_SIZE} shown={runs.data.results.length} onOffset={setOffset} />
              </>
            )}
          </>
        )}
      </main>
    </>
  );
}
