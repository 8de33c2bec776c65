// Edit a project's settings (PATCH only what changed) and archive or restore it.

import { useEffect, useState } from "preact/hooks";
import { sendJson } from "../../../components/form";
import { LoadErrorMessage } from "../../../components/PageMessage";
import { useResource } from "../../../hooks/useResource";
import { type FormErrors, NO_ERRORS, clearFields, toFormErrors } from "../../../lib/formErrors";
import { projectDetail } from "../../../prefetch";
import type { Me, ProjectAdminDetail } from "../../../types";
import { AdminLayout, Loading } from "../shared/AdminLayout";
import { ProjectFields } from "../shared/ProjectFields";
import { type ProjectForm, buildPatch, changedPaths, formFromProject } from "../shared/projectForm";
import { ArchiveSection } from "./ArchiveSection";

export function ProjectSettingsPage({ me, projectId }: { me: Me; projectId: number }) {
  const project = useResource<ProjectAdminDetail>(`/api/projects/${projectId}/`);
  const [form, setForm] = useState<ProjectForm | null>(null);
  const [errors, setErrors] = useState<FormErrors>(NO_ERRORS);
  const [busy, setBusy] = useState(false);
  const [saved, setSaved] = useState<string | null>(null);

  useEffect(() => {
    if (project.data) setForm(formFromProject(project.data));
  }, [project.data]);

  const applied = (p: ProjectAdminDetail) => {
    project.setData(p);
    void projectDetail(projectId, true); // the breadcrumb's cached copy
  };

  let body;
  if (project.error && !project.data) body = <LoadErrorMessage error={project.error} onRetry={() => void project.reload()} />;
  else if (!project.data || !form) body = <Loading />;
  else {
    const original = formFromProject(project.data);
    const update = (patch: Partial<ProjectForm>) => {
      setSaved(null);
      setForm((f) => (f ? { ...f, ...patch } : f));
      setErrors((e) => clearFields(e, changedPaths(patch)));
    };
    const submit = async (e: Event) => {
      e.preventDefault();
      if (busy) return;
      const built = buildPatch(original, form);
      if (!built.body) return setErrors(built.errors);
      if (!Object.keys(built.body).length) {
        setErrors(NO_ERRORS);
        return setSaved("Nothing to save: no field changed.");
      }
      setBusy(true);
      try {
        const res = await sendJson("PATCH", `/api/projects/${projectId}/`, built.body);
        if (res.status === 200) {
          setErrors(NO_ERRORS);
          applied(res.data as ProjectAdminDetail);
          setSaved("Saved.");
        } else setErrors(toFormErrors(res.data, res.status));
      } catch {
        setErrors({ fields: {}, general: ["The server cannot be reached; nothing was saved."] });
      } finally {
        setBusy(false);
      }
    };
    body = (
      <>
        <form class="admin-form" onSubmit={submit} noValidate data-testid="settings-form">
          <ProjectFields form={form} update={update} errors={errors} summaryTitle="Nothing was saved:" summaryTestId="settings-errors" showTemplates={project.data.kind !== "items"} />
          <div class="launch-bar">
            <span class="muted" role="status" data-testid="settings-status">
              {saved ?? ""}
            </span>
            <button type="button" class="btn ghost" disabled={busy} onClick={() => (setForm(original), setErrors(NO_ERRORS), setSaved(null))}>
              Undo changes
            </button>
            <button type="submit" class="btn primary" disabled={busy} data-testid="save-settings">
              {busy ? "Saving…" : "Save settings"}
            </button>
          </div>
        </form>
        <ArchiveSection project={project.data} onChanged={applied} />
      </>
    );
  }

  return (
    <AdminLayout me={me} projectId={projectId} projectName={project.data?.name} active="settings" title="Settings" testId="settings-page" intro="Name, taxonomy, how many annotators each document needs, justification templates, and the guidelines.">
      {body}
    </AdminLayout>
  );
}
