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
import { disagreementText } from "./queue";
import "./adjudication.css";

const PAGE_SIZE = 50;

/** Documents to adjudicate, most disagreement first (then by position). */
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
              Documents with submitted annotations, most disagreement first: the share of a document's sentences where the annotators gave different
              fallacy types. Documents where they agreed everywhere come last.
            </p>
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
            <table class="data-table adj-queue">
              <thead>
                <tr>
                  <th>Document</th>
                  <th>Annotators submitted</th>
                  <th title="Share of the document's sentences where the annotators' fallacy types differ">Sentences in disagreement</th>
                  <th>Adjudicated</th>
                </tr>
              </thead>
              <tbody>
                {queue.data.results.map((row) => (
                  <tr key={row.document.id} data-testid="queue-row">
                    <td>
                      <a href={paths.adjudicate(projectId, row.document.id)} onClick={linkHandler(paths.adjudicate(projectId, row.document.id))}>
                        {row.document.name || `Document ${row.document.id}`}
                      </a>
                    </td>
                    <td class="num">{row.annotators}</td>
                    <td class="num" data-testid="queue-disagreement">
                      {disagreementText(row.sort_key)}
                    </td>
                    <td>{row.adjudicated ? "yes" : "no"}</td>
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
