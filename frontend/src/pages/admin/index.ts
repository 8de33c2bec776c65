// The project-admin pages, loaded on demand as one chunk (annotators never download them).
export { NewProjectPage } from "./new/NewProjectPage";
export { ProjectSettingsPage } from "./settings/ProjectSettingsPage";
export { ImportPage } from "./import/ImportPage";
export { MembersPage } from "./members/MembersPage";
export { AssignPage } from "./assign/AssignPage";
export { SuggestionsAdminPage } from "./suggestions/SuggestionsAdminPage";
