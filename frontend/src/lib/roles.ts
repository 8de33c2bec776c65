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
