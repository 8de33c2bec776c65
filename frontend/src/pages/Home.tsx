// The home page: the user's projects with progress that tells the truth, "Continue" for
// annotators with work left, "New project" for those who may create one, archived ones apart.

import { useState } from "preact/hooks";
import { ProgressBar } from "../components/ProgressBar";
import { TopBar } from "../components/TopBar";
import { useResource } from "../hooks/useResource";
import { canCreateProjects, STAFF_ROLES } from "../lib/roles";
import { linkHandler, paths } from "../router";
import type { Me, Page, ProjectSummary } from "../types";
import { continueProject } from "./project/continueProject";
import { cardProgressText } from "./project/progressText";

function ProjectCard({ p }: { p: ProjectSummary }) {
  const [note, setNote] = useState<string | null>(null);
  const annotator = !STAFF_ROLES.includes(p.role);
  const left = p.progress.total - p.progress.done;
  const href = paths.project(p.id);
  return (
    <li class="card project-card" data-project-id={p.id}>
      <div class="card-head">
        <h2>
          <a href={href} onClick={linkHandler(href)}>
            {p.name}
          </a>
        </h2>
        <span class="badge">{p.role}</span>
      </div>
      {p.description && <p class="muted">{p.description}</p>}
      <div class="progress-row">
        <ProgressBar done={p.progress.done} total={p.progress.total} />
        <span class="progress-text" data-testid="card-progress">
          {cardProgressText(p.role, p.progress)}
        </span>
      </div>
      <div class="card-actions">
        {annotator && left > 0 && (
          <button
            class="btn primary"
            type="button"
            onClick={() =>
              continueProject(p.id, () => setNote("Nothing left to annotate: every document assigned to you is submitted.")).catch((e) =>
                setNote(e.message),
              )
            }
          >
            {p.progress.done === 0 ? "Start" : "Continue"}
          </button>
        )}
        <a class={`btn${annotator && left > 0 ? " ghost" : ""}`} href={href} onClick={linkHandler(href)}>
          {annotator ? "All documents" : "Open project"}
        </a>
      </div>
      {note && (
        <p class="note" role="status">
          {note}
        </p>
      )}
    </li>
  );
}

function ArchivedProjects() {
  const [open, setOpen] = useState(false);
  const list = useResource<Page<ProjectSummary>>(open ? "/api/projects/?archived=1" : null);
  return (
    <details class="archived" style={{ marginTop: "2rem" }} onToggle={(e) => setOpen((e.target as HTMLDetailsElement).open)} data-testid="archived-projects">
      <summary>Archived projects</summary>
      {open && !list.data && !list.error && <p class="muted">Loading…</p>}
      {list.error && <p class="form-error">{list.error.message}</p>}
      {list.data && list.data.results.length === 0 && <p class="muted">No archived projects.</p>}
      {list.data && list.data.results.length > 0 && (
        <ul class="cards">
          {list.data.results.map((p) => (
            <ProjectCard key={p.id} p={p} />
          ))}
        </ul>
      )}
    </details>
  );
}

export function HomePage({ me }: { me: Me }) {
  const projects = useResource<Page<ProjectSummary>>("/api/projects/");
  const list = projects.data?.results.filter((p) => !p.archived);
  const admin = me.is_superuser || me.projects.some((p) => p.role === "admin");
  return (
    <>
      <TopBar me={me} />
      <main class="page">
        <div class="page-head">
          <h1>Your projects</h1>
          {(me.is_superuser || me.projects.some((p) => p.role === "admin" || p.role === "reviewer")) && (
            <a class="btn" href={paths.generation()} onClick={linkHandler(paths.generation())} data-testid="generation-link">
              Generated items
            </a>
          )}
          {canCreateProjects(me) && (
            <a class="btn primary" href={paths.projectNew()} onClick={linkHandler(paths.projectNew())} data-testid="new-project">
              New project
            </a>
          )}
        </div>
        {projects.error && <p class="form-error">{projects.error.message}</p>}
        {!projects.data && !projects.error && <p class="muted">Loading…</p>}
        {list && list.length === 0 && (
          <div class="empty" data-testid="no-projects">
            <p>
              {canCreateProjects(me)
                ? "No projects yet. Create one to import texts and invite annotators."
                : "You are not a member of any project yet. Ask a project admin to add you."}
            </p>
          </div>
        )}
        <ul class="cards">
          {list?.map((p) => (
            <ProjectCard key={p.id} p={p} />
          ))}
        </ul>
        {admin && <ArchivedProjects />}
      </main>
    </>
  );
}
