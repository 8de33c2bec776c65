import { useProject } from "../hooks/useProject";
import { isProjectAdmin, isProjectStaff } from "../lib/roles";
import { linkHandler, paths } from "../router";
import type { Me } from "../types";

export type ProjectTab = "documents" | "settings" | "import" | "members" | "assign" | "suggestions" | "runs" | "review" | "adjudication" | "gold" | "results";

/** The project's tabs: documents for everyone; set-up pages for admins; model runs for staff. */
export function ProjectNav({ me, projectId, role, active }: { me: Me; projectId: number; role?: string | null; active: ProjectTab }) {
  // The project's kind (item projects get a Results tab); the pages have loaded it already.
  const kind = useProject(projectId)?.kind;
  const tabs: { key: ProjectTab; label: string; href: string }[] = [{ key: "documents", label: "Documents", href: paths.project(projectId) }];
  if (isProjectAdmin(me, projectId, role)) {
    tabs.push(
      { key: "import", label: "Import", href: paths.projectImport(projectId) },
      { key: "members", label: "Members", href: paths.projectMembers(projectId) },
      { key: "assign", label: "Assignment", href: paths.projectAssign(projectId) },
      { key: "settings", label: "Settings", href: paths.projectSettings(projectId) },
    );
    // model suggestions for annotators: span projects (item projects have no sentences)
    if (kind !== "items") tabs.push({ key: "suggestions", label: "Suggestions", href: paths.projectSuggestions(projectId) });
  }
  if (isProjectStaff(me, projectId, role))
    tabs.push(
      { key: "review", label: "Agreement", href: paths.review(projectId) },
      { key: "adjudication", label: "Adjudication", href: paths.adjudicationQueue(projectId) },
      { key: "gold", label: "Gold versions", href: paths.goldVersions(projectId) },
      { key: "runs", label: "Model runs", href: paths.runs(projectId) },
    );
  if (isProjectStaff(me, projectId, role) && (kind === "items" || active === "results"))
    tabs.push({ key: "results", label: "Results", href: paths.results(projectId) });
  if (tabs.length === 1) return null;
  return (
    <nav class="project-nav" aria-label="Project">
      {tabs.map((t) => (
        <a key={t.key} href={t.href} onClick={linkHandler(t.href)} class={t.key === active ? "active" : undefined} aria-current={t.key === active ? "page" : undefined} data-testid={`tab-${t.key}`}>
          {t.label}
        </a>
      ))}
    </nav>
  );
}
