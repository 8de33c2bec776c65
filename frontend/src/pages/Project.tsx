import { useEffect, useState } from "preact/hooks";
import { get } from "../api";
import { ProgressBar } from "../components/ProgressBar";
import { TopBar } from "../components/TopBar";
import { isProjectStaff } from "../lib/roles";
import { linkHandler, paths } from "../router";
import type { DocumentSummary, Me, Page, Project } from "../types";
import { continueProject } from "./Home";

const STATUS_TEXT = { todo: "To do", in_progress: "In progress", submitted: "Submitted" };

export function ProjectPage({ me, id }: { me: Me; id: number }) {
  const [project, setProject] = useState<Project | null>(null);
  const [docs, setDocs] = useState<DocumentSummary[] | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [note, setNote] = useState<string | null>(null);

  useEffect(() => {
    Promise.all([get<Project>(`/api/projects/${id}/`), get<Page<DocumentSummary>>(`/api/projects/${id}/documents/?limit=1000`)])
      .then(([p, d]) => {
        setProject(p);
        setDocs(d.results);
      })
      .catch((e) => setError(e.message));
  }, [id]);

  return (
    <>
      <TopBar me={me}>
        <nav class="crumbs" aria-label="Breadcrumb">
          <a href="/" onClick={linkHandler("/")}>
            Projects
          </a>
          <span aria-hidden="true">›</span>
          <span>{project?.name ?? "…"}</span>
        </nav>
      </TopBar>
      <main class="page">
        {error && <p class="form-error">{error}</p>}
        {project && (
          <>
            <div class="page-head">
              <div>
                <h1>{project.name}</h1>
                {project.description && <p class="muted">{project.description}</p>}
              </div>
              <div class="head-actions">
                {isProjectStaff(me, id, project.role) && (
                  <a class="btn" href={paths.runs(id)} onClick={linkHandler(paths.runs(id))} data-testid="project-runs-link">
                    Model runs &amp; leaderboards
                  </a>
                )}
                <button
                  class="btn primary"
                  type="button"
                  onClick={() => continueProject(id, () => setNote("All your documents are done.")).catch((e) => setNote(e.message))}
                >
                  Continue
                </button>
              </div>
            </div>
            <div class="progress-row">
              <ProgressBar done={project.progress.done} total={project.progress.total} />
              <span class="progress-text">
                {project.progress.done} / {project.progress.total} done
              </span>
            </div>
            {note && (
              <p class="note" role="status">
                {note}
              </p>
            )}
          </>
        )}
        {docs && (
          <table class="table">
            <thead>
              <tr>
                <th scope="col">#</th>
                <th scope="col">Document</th>
                <th scope="col">Status</th>
                <th scope="col">
                  <span class="sr-only">Open</span>
                </th>
              </tr>
            </thead>
            <tbody>
              {docs.map((d) => (
                <tr key={d.id}>
                  <td class="num">{d.position}</td>
                  <td>{d.external_id || `Document ${d.id}`}</td>
                  <td>
                    <span class={`status-pill ${d.status}`}>{STATUS_TEXT[d.status] ?? d.status}</span>
                  </td>
                  <td class="right">
                    <a class="btn small ghost" href={`/documents/${d.id}/`} onClick={linkHandler(`/documents/${d.id}/`)}>
                      {d.status === "submitted" ? "View" : "Open"}
                    </a>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        )}
        {docs && docs.length === 0 && <p class="muted">No documents are assigned to you in this project.</p>}
      </main>
    </>
  );
}
