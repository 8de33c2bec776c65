import { useEffect, useState } from "preact/hooks";
import { get } from "../api";
import { ProgressBar } from "../components/ProgressBar";
import { TopBar } from "../components/TopBar";
import { linkHandler, navigate } from "../router";
import type { Me, Page, ProjectSummary } from "../types";

export async function continueProject(projectId: number, onNone: () => void) {
  const { document: doc } = await get<{ document: number | null }>(`/api/projects/${projectId}/next-document/`);
  if (doc) navigate(`/documents/${doc}/`);
  else onNone();
}

export function HomePage({ me }: { me: Me }) {
  const [projects, setProjects] = useState<ProjectSummary[] | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [doneMsg, setDoneMsg] = useState<Record<number, string>>({});

  useEffect(() => {
    get<Page<ProjectSummary>>("/api/projects/")
      .then((p) => setProjects(p.results))
      .catch((e) => setError(e.message));
  }, []);

  return (
    <>
      <TopBar me={me} />
      <main class="page">
        <h1>Your projects</h1>
        {error && <p class="form-error">{error}</p>}
        {!projects && !error && <p class="muted">Loading…</p>}
        {projects && projects.length === 0 && (
          <p class="muted">You are not a member of any project yet. Ask a project admin to add you.</p>
        )}
        <ul class="cards">
          {projects?.map((p) => (
            <li class="card project-card" key={p.id}>
              <div class="card-head">
                <h2>
                  <a href={`/projects/${p.id}/`} onClick={linkHandler(`/projects/${p.id}/`)}>
                    {p.name}
                  </a>
                </h2>
                <span class="badge">{p.role}</span>
              </div>
              {p.description && <p class="muted">{p.description}</p>}
              <div class="progress-row">
                <ProgressBar done={p.progress.done} total={p.progress.total} />
                <span class="progress-text">
                  {p.progress.done} / {p.progress.total} done
                </span>
              </div>
              <div class="card-actions">
                {p.progress.total === 0 ? (
                  <span class="muted">No documents assigned to you yet.</span>
                ) : (
                  <button
                    class="btn primary"
                    type="button"
                    onClick={() =>
                      continueProject(p.id, () => setDoneMsg((m) => ({ ...m, [p.id]: "All your documents are done. Thank you!" }))).catch(
                        (e) => setDoneMsg((m) => ({ ...m, [p.id]: e.message })),
                      )
                    }
                  >
                    {p.progress.done === 0 ? "Start" : "Continue"}
                  </button>
                )}
                <a class="btn ghost" href={`/projects/${p.id}/`} onClick={linkHandler(`/projects/${p.id}/`)}>
                  All documents
                </a>
              </div>
              {doneMsg[p.id] && (
                <p class="note" role="status">
                  {doneMsg[p.id]}
                </p>
              )}
            </li>
          ))}
        </ul>
      </main>
    </>
  );
}
