import { Crumbs } from "../../components/Crumbs";
import { LoadErrorMessage } from "../../components/PageMessage";
import { ProjectNav } from "../../components/ProjectNav";
import { TopBar } from "../../components/TopBar";
import { useState } from "preact/hooks";
import { useProject } from "../../hooks/useProject";
import { queryString } from "../../lib/paging";
import { usePageReady } from "../../hooks/usePageReady";
import { useResource } from "../../hooks/useResource";
import { paths } from "../../router";
import type { ItemLeaderboard, Me } from "../../types";
import { BiasChart } from "./BiasChart";
import { ComparisonTable } from "./ComparisonTable";
import { ComparePair } from "../../components/ComparePair";
import { MetricLegend } from "../../components/MetricLegend";
import { metricHelp } from "../../lib/metricHelp";
import { pairOptions } from "../../lib/pairs";
import { boardProfiles, rowsOf } from "./figures";
import { FiguresPanel } from "./FiguresPanel";
import { RatingsPanel } from "./RatingsPanel";
import { ResultsTable } from "./ResultsTable";
import { boardNames } from "./table";
import "./results.css";

function initialSubset(): string {
  return new URLSearchParams(location.search).get("subset") ?? "";
}

/** An item project's results: the leaderboard of each scoring profile side by side (models ×
 *  prompt variants, imported runs and humans; rows ranked only against rows scored on the
 *  same items), every figure of the reports with a table and a chart, the prompting
 *  comparisons, the label-bias chart and the human ratings' agreement, on all items or a
 *  subset. Reviewers and admins only. */
export function ResultsPage({ me, projectId }: { me: Me; projectId: number }) {
  const project = useProject(projectId);
  const [subset, setSubset] = useState(initialSubset);
  const base = `/api/evaluation/projects/${projectId}/item-leaderboard/`;
  const api = (format?: string) => `${base}${queryString({ subset: subset || null, format })}`;
  const board = useResource<ItemLeaderboard>(api());
  const data = board.data;
  usePageReady("results", data != null || board.error != null); // the tables are on screen
  const projectName = project?.name ?? data?.project.name ?? `Project ${projectId}`;
  const aggregate = data?.aggregate === "geometric" ? "the geometric mean of the skills" : "the macro average of the skills";
  const profiles = data ? boardProfiles(data) : [];
  const hasOverall = data?.rows.some((r) => r.overall != null) ?? false;
  const choose = (next: string) => {
    setSubset(next);
    history.replaceState(null, "", `${location.pathname}${next ? `?subset=${encodeURIComponent(next)}` : ""}`);
  };

  return (
    <>
      <TopBar me={me}>
        <Crumbs items={[{ label: projectName, href: paths.project(projectId) }, { label: "Results" }]} />
      </TopBar>
      <ProjectNav me={me} projectId={projectId} role={project?.role} active="results" />
      <main class="page wide" data-testid="results-page">
        {board.error && !data ? (
          <LoadErrorMessage error={board.error} onRetry={() => void board.reload()} />
        ) : (
          <>
            <div class="page-head">
              <div>
                <h1>Results</h1>
                <p class="muted">
                  {projectName}
                  {data && ` · ${data.tasks.length} ${data.tasks.length === 1 ? "task" : "tasks"}${hasOverall ? ` · overall is ${aggregate}` : ""}`}
                </p>
              </div>
              <div class="head-actions">
                {data?.subsets && data.subsets.length > 0 && (
                  <label class="inline-field">
                    <span>Items</span>
                    <select value={subset} onChange={(e) => choose((e.target as HTMLSelectElement).value)} data-testid="subset">
                      <option value="">all items</option>
                      {data.subsets.map((o) => (
                        <option key={o.name} value={o.name}>
                          {o.name} ({o.items})
                        </option>
                      ))}
                    </select>
                  </label>
                )}
                <a class="btn small" href={api("csv")} download={`results-${projectId}.csv`} data-testid="download-csv">
                  Download CSV
                </a>
                <a class="btn small" href={api("latex")} download={`results-${projectId}.tex`} data-testid="download-latex">
                  LaTeX
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
                {data.subset && (
                  <p class="profile-line" data-testid="subset-line">
                    Scored on the subset <strong>{data.subset.name}</strong> ({data.subset.items} items): stored outputs scored again on these items only.
                  </p>
                )}
                <div class={`profile-tables${profiles.length > 1 ? " side-by-side" : ""}`}>
                  {profiles.map((p) => (
                    <section key={p} class="profile-table" data-testid="profile-results" data-profile={p}>
                      <h2 class="profile-line" title={metricHelp(p)?.text}>
                        Profile <strong>{p}</strong>
                      </h2>
                      {metricHelp(p) && (
                        <p class="muted small profile-help" data-testid="profile-help">
                          {metricHelp(p)?.text}
                        </p>
                      )}
                      <ResultsTable board={data} rows={rowsOf(data, p)} profile={p} />
                    </section>
                  ))}
                </div>
                <p class="muted small table-note">
                  Each task's primary figure (hover a cell for its items and paired test); the best figure of each column is in bold. Rows are ranked only against rows scored on the same
                  items; * marks a figure significantly different (paired test, p &lt; 0.05) from the next row's. Humans are scored on the items they answered.
                  {data.unscored.length > 0 && ` ${data.unscored.length} finished ${data.unscored.length === 1 ? "run has" : "runs have"} no score yet.`}
                </p>
                {data.overall_basis && (
                  <p class="muted small table-note" data-testid="overall-basis">
                    {data.overall_basis.text}
                  </p>
                )}
                <MetricLegend names={[...profiles, ...boardNames(data)]} />
                <ComparePair options={pairOptions(data.rows)} url={(a, b) => `${base}${queryString({ subset: subset || null, compare: `${a},${b}` })}`} units="items" />
                <FiguresPanel board={data} profiles={profiles} />
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
