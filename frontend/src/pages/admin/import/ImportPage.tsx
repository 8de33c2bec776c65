// Import texts into a project: upload, follow the job, read its report; recent imports below.

import { useState } from "preact/hooks";
import { get } from "../../../api";
import { LoadErrorMessage } from "../../../components/PageMessage";
import { usePoll, useResource } from "../../../hooks/useResource";
import type { ImportJob, Me, Page, Project, ProjectAdminDetail } from "../../../types";
import { AdminLayout, Loading } from "../shared/AdminLayout";
import { isActive } from "../shared/importJob";
import { listOf } from "../shared/list";
import { ImportForm } from "./ImportForm";
import { ImportJobView } from "./ImportJobView";
import { ItemExports } from "./ItemExports";
import { OutputsImport } from "./OutputsImport";
import { RecentImports } from "./RecentImports";

// A poll reads one small row; the page learns a job ended within 200 ms (100 on average).
const POLL_MS = 200;

export function ImportPage({ me, projectId }: { me: Me; projectId: number }) {
  const project = useResource<Project & Pick<ProjectAdminDetail, "form">>(`/api/projects/${projectId}/`);
  const recent = useResource<ImportJob[] | Page<ImportJob>>(`/api/projects/${projectId}/imports/`);
  const [job, setJob] = useState<ImportJob | null>(null);

  const finished = () => Promise.all([project.reload(), recent.reload()]);
  const show = (j: ImportJob) => {
    setJob(j);
    void (isActive(j) ? recent.reload() : finished());
  };
  usePoll(
    isActive(job),
    async () => {
      if (!job) return;
      const next = await get<ImportJob>(`/api/imports/${job.id}/`);
      setJob(next);
      if (!isActive(next)) await finished();
    },
    POLL_MS,
  );

  const count = project.data?.progress?.total;
  return (
    <AdminLayout me={me} projectId={projectId} active="import" title="Import texts" testId="import-page" intro={project.data?.kind === "items" ? "FLUB, SmartyPat, any CSV/JSONL file with a column mapping, or a Hugging Face dataset folder (zipped). Every record becomes an item; re-importing the same ids is refused." : "MAFALDA, doccano, Label Studio JSON, plain text, CSV, or a Hugging Face dataset folder (zipped). A text already in the project is reused, not added twice."}>
      {project.error && !project.data ? (
        <LoadErrorMessage error={project.error} onRetry={() => void project.reload()} />
      ) : (
        <>
          <p class="doc-count" data-testid="document-count" data-count={count ?? ""}>
            {count == null ? "…" : count === 0 ? "No documents yet — import some." : `This project has ${count.toLocaleString("en")} document${count === 1 ? "" : "s"}.`}
          </p>
          {project.data && <ImportForm key={project.data.kind ?? "spans"} projectId={projectId} disabled={isActive(job)} onJob={show} kind={project.data.kind ?? "spans"} />}
          {job && <ImportJobView job={job} onDismiss={() => setJob(null)} />}
          {project.data?.kind === "items" && <OutputsImport projectId={projectId} form={project.data.form} />}
          {project.data?.kind === "items" && <ItemExports projectId={projectId} />}
          <section class="admin-section-plain" aria-labelledby="recent-title">
            <h2 id="recent-title" class="subhead-lg">
              Recent imports
            </h2>
            {recent.error && !recent.data ? (
              <LoadErrorMessage error={recent.error} onRetry={() => void recent.reload()} />
            ) : !recent.data ? (
              <Loading />
            ) : (
              <RecentImports jobs={listOf(recent.data)} onOpen={show} />
            )}
          </section>
        </>
      )}
    </AdminLayout>
  );
}
