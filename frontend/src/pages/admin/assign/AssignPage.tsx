// Assignment: the annotators' loads, "each document to N annotators", unassign / reassign.

import { useState } from "preact/hooks";
import { LoadErrorMessage } from "../../../components/PageMessage";
import { useResource } from "../../../hooks/useResource";
import type { AssignResult, Me, Member, Page, ProjectAdminDetail, ProjectProgress } from "../../../types";
import { AdminLayout, Loading } from "../shared/AdminLayout";
import { listOf } from "../shared/list";
import { AssignForm } from "./AssignForm";
import { LoadsTable, Totals } from "./LoadsTable";
import { MoveForm } from "./MoveForm";

export function AssignPage({ me, projectId }: { me: Me; projectId: number }) {
  const project = useResource<ProjectAdminDetail>(`/api/projects/${projectId}/`);
  const progress = useResource<ProjectProgress>(`/api/projects/${projectId}/progress/`);
  const members = useResource<Member[] | Page<Member>>(`/api/projects/${projectId}/members/`);
  const [before, setBefore] = useState<Map<number, number> | null>(null);
  const [result, setResult] = useState<AssignResult | null>(null);

  const error = project.error ?? progress.error ?? members.error;
  const ready = project.data && progress.data && members.data;
  let body;
  if (error && !ready) body = <LoadErrorMessage error={error} onRetry={() => void Promise.all([project.reload(), progress.reload(), members.reload()])} />;
  else if (!ready) body = <Loading />;
  else {
    const annotators = listOf(members.data!).filter((m) => m.role === "annotator").map((m) => ({ id: m.user.id, username: m.user.username }));
    const refresh = () => Promise.all([progress.reload(), members.reload(), project.reload()]).then(() => undefined);
    const done = async (r: AssignResult) => {
      setBefore(new Map(progress.data!.annotators.map((a) => [a.id, a.assigned])));
      setResult(r);
      await refresh();
    };
    body = (
      <>
        {progress.data!.totals.documents === 0 && (
          <p class="note" data-testid="no-documents">
            No documents yet — import some on the Import tab first.
          </p>
        )}
        <Totals progress={progress.data!} />
        {result && (
          <div class="note assign-result" role="status" data-testid="assign-result">
            <strong>{result.documents === 0 ? "No document was chosen: nothing assigned." : result.created === 0 ? "Nothing to add: every chosen document already had enough annotators." : `${result.created} assignment${result.created === 1 ? "" : "s"} created`}</strong> over {result.documents} document{result.documents === 1 ? "" : "s"}. Now:{" "}
            {result.annotators.map((a, i) => (
              <span key={a.id} data-testid="assign-result-annotator" data-username={a.username} data-assigned={a.assigned}>
                {i > 0 && ", "}
                {a.username} {a.assigned}
              </span>
            ))}
            .
          </div>
        )}
        <LoadsTable annotators={progress.data!.annotators} before={before} />
        <AssignForm projectId={projectId} annotators={annotators} filterAnnotators={progress.data!.annotators} perDocument={project.data!.annotators_per_document ?? 1} onDone={done} key={annotators.map((a) => a.id).join(",")} />
        <MoveForm
          projectId={projectId}
          annotators={annotators}
          onDone={async () => {
            setBefore(new Map(progress.data!.annotators.map((a) => [a.id, a.assigned])));
            setResult(null);
            await refresh();
          }}
        />
      </>
    );
  }
  return (
    <AdminLayout me={me} projectId={projectId} active="assign" title="Assignment" testId="assign-page" intro="Who annotates which documents. Each document goes to as many annotators as the project needs, never twice to the same one, balanced across them.">
      {body}
    </AdminLayout>
  );
}
