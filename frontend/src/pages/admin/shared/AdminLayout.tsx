// The frame of every project-admin page: top bar with breadcrumbs, project tabs, heading.

import type { ComponentChildren } from "preact";
import { Crumbs } from "../../../components/Crumbs";
import { ProjectNav, type ProjectTab } from "../../../components/ProjectNav";
import { TopBar } from "../../../components/TopBar";
import { useProject } from "../../../hooks/useProject";
import { paths } from "../../../router";
import type { Me } from "../../../types";
import "../admin.css";

export function AdminLayout({
  me,
  projectId,
  active,
  title,
  intro,
  actions,
  testId,
  projectName,
  children,
}: {
  me: Me;
  projectId: number;
  active: ProjectTab;
  title: string;
  intro?: ComponentChildren;
  actions?: ComponentChildren;
  testId: string;
  /** The project's current name when the page has it (settings after a rename). */
  projectName?: string;
  children: ComponentChildren;
}) {
  const project = useProject(projectId);
  const name = projectName ?? project?.name ?? me.projects.find((p) => p.id === projectId)?.name ?? `Project ${projectId}`;
  return (
    <>
      <TopBar me={me}>
        <Crumbs items={[{ label: name, href: paths.project(projectId) }, { label: title }]} />
      </TopBar>
      <ProjectNav me={me} projectId={projectId} role={project?.role} active={active} />
      <main class="page admin-page" data-testid={testId}>
        <div class="page-head">
          <div>
            <h1>{title}</h1>
            {intro && <p class="muted">{intro}</p>}
          </div>
          {actions && <div class="head-actions">{actions}</div>}
        </div>
        {children}
      </main>
    </>
  );
}

/** A one-line "Loading…" in the pages' style. */
export function Loading({ what = "Loading…" }: { what?: string }) {
  return (
    <p class="muted" aria-busy="true">
      {what}
    </p>
  );
}
