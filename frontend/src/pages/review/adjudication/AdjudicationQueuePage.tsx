import { useState } from "preact/hooks";
import { Crumbs } from "../../../components/Crumbs";
import { LoadErrorMessage } from "../../../components/PageMessage";
import { Pager } from "../../../components/Pager";
import { ProjectNav } from "../../../components/ProjectNav";
import { TopBar } from "../../../components/TopBar";
import { usePoll, useResource } from "../../../hooks/useResource";
import { useProject } from "../../../hooks/useProject";
import { linkHandler, paths } from "../../../router";
import type { Me, Queue } from "../../../types";
import { decisionText, disagreementText } from "./queue";
import "./adjudication.css";

const PAGE_SIZE = 50;

/** Documents to adjudicate: undecided first (most disagreement, then the longest), decided last. */
export function AdjudicationQueuePage({ me, projectId }: { me: Me; projectId: number }) {
  const project = useProject(projectId);
  const [offset, setOffset] = useState(0);
  const page = offset / PAGE_SIZE + 1;
  const queue = useResource<Queue>(`/api/projects/${projectId}/adjudication/?page=${page}&page_size=${PAGE_SIZE}`);
  const computing = queue.data?.agreement.status === "computing";
  usePoll(computing, queue.reload, 1500);
  return (
    <>
      <TopBar me={me}>
        <Crumbs items={[{ label: project?.name ?? `Project ${projectId}`, href: paths.project(projectId) }, { label: "Adjudication" }]} />
      </TopBar>
      <ProjectNav me={me} projectId={projectId} role={project?.role} active="adjudication" />
      <main class="page wide" data-testid="adjudication-queue">
        <div class="page-head">
          <div>
            <h1>Adjudication</h1>
            <p class="muted" data-testid="queue-measure">
              Documents with submitted annotations. Those still to decide come first, most disagreement first (the share of a document's sentences where
              the annotators gave different fallacy types), then the longest; documents already decided come last.
            </p>
            {queue.data && (
              <p class="muted small" data-testid="queue-undecided">
                {queue.data.undecided} of {queue.data.count} document(s) still to decide.
              </p>
            )}
          </div>
          <a class="btn" href={paths.goldVersions(projectId)} onClick={linkHandler(paths.goldVersions(projectId))}>
            Gold versions
          </a>
        </div>
        {computing && (
          <p class="muted" role="status" data-testid="queue-computing">
            Computing agreement… (the order follows the last figures until then)
          </p>
        )}
        {queue.error && !queue.data && <LoadErrorMessage error={queue.error} onRetry={() => void queue.reload()} />}
        {!queue.data && !queue.error && <p class="muted">Loading…</p>}
        {queue.data && queue.data.count === 0 && <p class="empty">No document has a submitted annotation yet.</p>}
        {queue.data && queue.data.results.length > 0 && (
          <>
            <table class="table data-table adj-queue">
              <thead>
                <tr>
                  <th>Document</th>
                  <th class="num">Annotators submitted</th>
                  <th class="num" title="Share of the document's sentences where the annotators' fallacy types differ">
                    Sentences in disagreement
                  </th>
                  <th class="num">Characters</th>
                  <th>Decision</th>
                </tr>
              </thead>
              <tbody>
                {queue.data.results.map((row) => (
                  <tr key={row.document.id} class={row.adjudicated ? "decided" : undefined} data-testid="queue-row" data-decided={row.adjudicated ? "yes" : "no"}>
                    <td>
                      <a href={paths.adjudicate(projectId, row.document.id)} onClick={linkHandler(paths.adjudicate(projectId, row.document.id))}>
                        {row.document.name || `Document ${row.document.id}`}
                      </a>
                    </td>
                    <td class="num">{row.annotators}</td>
                    <td class="num" data-testid="queue-disagreement">
                      {disagreementText(row.sort_key)}
                    </td>
                    <td class="num">{row.document.length.toLocaleString()}</td>
                    <td>
                      <span class={`adj-decision ${row.adjudicated ? "done" : "open"}`} data-testid="queue-decision">
                        {row.adjudicated ? "✓ " : ""}
                        {decisionText(row)}
                      </span>
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
            <Pager count={queue.data.count} offset={offset} limit={PAGE_SIZE} shown={queue.data.results.length} onOffset={setOffset} />
          </>
        )}
      </main>
    </>
  );
}
