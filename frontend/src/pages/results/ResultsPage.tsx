import { Crumbs } from "../../components/Crumbs";
import { LoadErrorMessage } from "../../components/PageMessage";
import { ProjectNav } from "../../components/ProjectNav";
import { TopBar } from "../../components/TopBar";
import { useProject } from "../../hooks/useProject";
import { useResource } from "../../hooks/useResource";
import { paths } from "../../router";
import type { ItemLeaderboard, Me } from "../../types";
import { BiasChart } from "./BiasChart";
import { ComparisonTable } from "./ComparisonTable";
import { RatingsPanel } from "./RatingsPanel";
import { ResultsTable } from "./ResultsTable";
import "./results.css";

/** An item project's results: the leaderboard (models × prompt variants and humans), the
 *  prompting comparisons, the label-bias chart and the human ratings' agreement. Reviewers
 *  and admins only. */
export function ResultsPage({ me, projectId }: { me: Me; projectId: number }) {
  const project = useProject(projectId);
  const api = `/api/evaluation/projects/${projectId}/item-leaderboard/`;
  const board = useResource<ItemLeaderboard>(api);
  const data = board.data;
  const projectName = project?.name ?? data?.project.name ?? `Project ${projectId}`;
  const aggregate = data?.aggregate === "geometric" ? "the geometric mean of the skills" : "the macro average of the skills";

  return (
    <>
      <TopBar me={me}>
        <Crumbs items={[{ label: projectName, href: paths.project(projectId) }, { label: "Results" }]} />
      </TopBar>
      <main class="page wide" data-testid="results-page">
        <ProjectNav me={me} projectId={projectId} role={project?.role} active="results" />
        {board.error && !data ? (
          <LoadErrorMessage error={board.error} onRetry={() => void board.reload()} />
        ) : (
          <>
            <div class="page-head">
              <div>
                <h1>Results</h1>
                <p class="muted">
                  {projectName}
                  {data && ` · ${data.tasks.length} ${data.tasks.length === 1 ? "task" : "tasks"} · overall is ${aggregate}`}
                </p>
              </div>
              <div class="head-actions">
                <a class="btn small" href={`${api}?format=csv`} download={`results-${projectId}.csv`} data-testid="download-csv">
                  Download CSV
                </a>
              </div>
            </div>
            {!data && <p class="muted">Loading…</p>}
            {data && data.rows.length === 0 && (
              <p class="empty" data-testid="results-empty">
                No finished item runs or scored answers yet.
              </p>
            )}
            {data && data.rows.length > 0 && (
              <>
                <ResultsTable board={data} />
                <p class="muted small table-note">
                  Each task's primary figure (hover a header for the metric); the best figure of each column is in bold. Humans are scored on the items they answered.
                  {data.unscored.length > 0 && ` ${data.unscored.length} finished ${data.unscored.length === 1 ? "run has" : "runs have"} no score yet.`}
                </p>
                <ComparisonTable board={data} />
                <BiasChart board={data} />
              </>
            )}
            {data && <RatingsPanel projectId={projectId} />}
          </>
        )}
      </main>
    </>
  );
}
