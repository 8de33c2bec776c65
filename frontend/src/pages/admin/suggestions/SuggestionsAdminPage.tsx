// Model suggestions for the project's annotators (project admins): assistance on or off,
// the queue's order, turning finished runs into suggestions (the service's refusals named
// by run), and the report (acceptance per run and label, time per document with and
// without suggestions).

import { useResource } from "../../../hooks/useResource";
import type { Me } from "../../../types";
import { AdminLayout } from "../shared/AdminLayout";
import { type SuggestionReport, suggestionsUrl } from "../shared/suggestions";
import { CreateSection } from "./CreateSection";
import { ReportSection } from "./ReportSection";
import { SettingsSection } from "./SettingsSection";

export function SuggestionsAdminPage({ me, projectId }: { me: Me; projectId: number }) {
  const report = useResource<SuggestionReport>(`${suggestionsUrl(projectId)}/report/`);
  return (
    <AdminLayout
      me={me}
      projectId={projectId}
      active="suggestions"
      title="Suggestions"
      testId="suggestions-admin-page"
      intro="Finished model runs offered to annotators as suggestions they accept or reject; a suggestion is never an annotation until accepted."
    >
      <SettingsSection projectId={projectId} />
      <CreateSection projectId={projectId} onCreated={() => void report.reload()} />
      <ReportSection report={report} />
    </AdminLayout>
  );
}
