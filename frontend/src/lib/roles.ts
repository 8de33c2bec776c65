// Who sees the evaluation pages: reviewers and admins of a project (superusers count as
// admins: /api/auth/me/ lists every project for them with the role "admin").

import type { Me } from "../types";

export const STAFF_ROLES = ["admin", "reviewer"];

/** The user's role in a project: the project's own answer first, else Me's list. */
export function roleIn(me: Me, projectId: number, projectRole?: string | null): string | null {
  if (projectRole) return projectRole;
  return me.projects.find((p) => p.id === projectId)?.role ?? null;
}

export function isProjectStaff(me: Me, projectId: number, projectRole?: string | null): boolean {
  const role = roleIn(me, projectId, projectRole);
  return role ? STAFF_ROLES.includes(role) : me.is_staff;
}

/** Project admins (and superusers, who count as admins everywhere). */
export function isProjectAdmin(me: Me, projectId: number, projectRole?: string | null): boolean {
  if (me.is_superuser) return true;
  return roleIn(me, projectId, projectRole) === "admin";
}

/** Superusers and Django staff users may create projects. */
export function canCreateProjects(me: Me): boolean {
  return Boolean(me.can_create_projects ?? me.is_superuser);
}
