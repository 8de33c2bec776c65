// The project-admin pages, loaded on demand as one chunk (annotators never download them).
export { NewProjectPage, ProjectSettingsPage, ImportPage, MembersPage, AssignPage } from "./stubs";
