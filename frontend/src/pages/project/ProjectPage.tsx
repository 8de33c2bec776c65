// A project's home: its documents for every role; an annotator's own queue, or for reviewers
// and admins the progress panel (totals and annotators). The list state lives in the URL.

import { Crumbs } from "../../components/Crumbs";
import { LoadErrorMessage } from "../../components/PageMessage";
import { ProjectNav } from "../../components/ProjectNav";
import { TopBar } from "../../components/TopBar";
import { useResource } from "../../hooks/useResource";
import { isProjectAdmin, isProjectStaff } from "../../lib/roles";
import { paths } from "../../router";
import type { Me, Project, ProjectProgress } from "../../types";
import { DocumentList } from "./DocumentList";
import { EmptyState } from "./EmptyState";
import { MyQueue } from "./MyQueue";
import { ProgressPanel } from "./ProgressPanel";
import { DEFAULT_QUERY, update } from "./query";
import { useListQuery } from "./useListQuery";
import "./project.css";

/** Keyed by the project: another project starts with its own list state (from its URL). */
export function ProjectPage({ me, id }: { me: Me; id: number }) {
  return <ProjectView key={id} me={me} id={id} />;
}

function ProjectView({ me, id }: { me: Me; id: number }) {
  const project = useResource<Project>(`/api/projects/${id}/`);
  const p = project.data;
  // The role from the session first, so the list and progress load alongside the project.
  const staff = isProjectStaff(me, id, p?.role);
  const admin = isProjectAdmin(me, id, p?.role);
  const failed = project.error && !p;
  const progress = useResource<ProjectProgress>(staff && !failed ? `/api/projects/${id}/progress/` : null);
  // Annotators' default order: the project's queue order (documents where runs disagree first)
  const queue = useResource<{ ordering: string }>(!staff && !failed ? `/api/evaluation/projects/${id}/suggestions/settings/` : null);
  const [query, setQuery] = useListQuery(queue.data?.ordering === "disagreement" ? "disagreement" : DEFAULT_QUERY.ordering);
  const perDocument = progress.data?.annotators_per_document ?? p?.annotators_per_document ?? 1;
  const totals = progress.data?.totals;

  return (
    <>
      <TopBar me={me}>
        <Crumbs items={[{ label: p?.name ?? "…" }]} />
      </TopBar>
      {!failed && <ProjectNav me={me} projectId={id} role={p?.role} active="documents" />}
      <main class="page wide project-page" data-testid="project-page">
        {failed ? (
          <LoadErrorMessage error={project.error!} onRetry={() => void project.reload()} />
        ) : (
          <>
            {p ? (
              <ProjectHead project={p} />
            ) : (
              <p class="muted">Loading…</p>
            )}
            {staff
              ? progress.data && <ProgressPanel progress={progress.data} onAnnotator={(a) => setQuery(update(query, { annotator: a }))} />
              : p && <MyQueue projectId={id} progress={p.progress} />}
            {staff && totals && totals.documents > 0 && totals.assignments === 0 && (
              <EmptyState testId="empty-no-assignment" action={admin ? { href: paths.projectAssign(id), label: "Assign documents" } : undefined}>
                No document is assigned yet{admin ? "." : " — a project admin assigns them to annotators."}
              </EmptyState>
            )}
            <DocumentList
              projectId={id}
              staff={staff}
              admin={admin}
              query={query}
              onQuery={setQuery}
              annotators={progress.data?.annotators ?? []}
              perDocument={perDocument}
            />
          </>
        )}
      </main>
    </>
  );
}

function ProjectHead({ project: p }: { project: Project }) {
  return (
    <div class="page-head">
      <div>
        <h1>
          {p.name}
          {p.archived && <span class="badge subtle">archived</span>}
        </h1>
        {p.description && <p class="muted">{p.description}</p>}
      </div>
    </div>
  );
}
