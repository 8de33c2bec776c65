// Placeholders until the pages land (replaced by pages/admin/<page>/ folders).
import type { Me } from "../../types";

export function NewProjectPage(_: { me: Me }) {
  return <p>Not built yet.</p>;
}
export function ProjectSettingsPage(_: { me: Me; projectId: number }) {
  return <p>Not built yet.</p>;
}
export const ImportPage = ProjectSettingsPage;
export const MembersPage = ProjectSettingsPage;
export const AssignPage = ProjectSettingsPage;
