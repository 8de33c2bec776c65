// Create a project: its kind (span annotation, or items answered through a form), name,
// description, taxonomy, annotators per document, guidelines.

import { useState } from "preact/hooks";
import { Crumbs } from "../../../components/Crumbs";
import { sendJson } from "../../../components/form";
import { TopBar } from "../../../components/TopBar";
import { type FormErrors, NO_ERRORS, clearFields, messagesFor, toFormErrors } from "../../../lib/formErrors";
import { linkHandler, paths } from "../../../router";
import type { Me, ProjectAdminDetail } from "../../../types";
import { EMPTY_KIND, type KindChoice } from "../shared/itemForm";
import { ProjectFields } from "../shared/ProjectFields";
import { KindPicker } from "./KindPicker";
import { EMPTY_PROJECT, type ProjectForm, buildCreate, changedPaths } from "../shared/projectForm";
import "../admin.css";

export function NewProjectPage({ me }: { me: Me }) {
  const [form, setForm] = useState<ProjectForm>(EMPTY_PROJECT);
  const [errors, setErrors] = useState<FormErrors>(NO_ERRORS);
  const [busy, setBusy] = useState(false);
  const [kind, setKind] = useState<KindChoice>(EMPTY_KIND);
  const update = (patch: Partial<ProjectForm>) => {
    setForm((f) => ({ ...f, ...patch }));
    setErrors((e) => clearFields(e, changedPaths(patch)));
  };

  const submit = async (e: Event) => {
    e.preventDefault();
    if (busy) return;
    const built = buildCreate(form, kind);
    if (!built.body) return setErrors(built.errors);
    setBusy(true);
    try {
      const res = await sendJson("POST", "/api/projects/", built.body);
      if (res.status === 201 || res.status === 200) {
        const project = res.data as ProjectAdminDetail;
        // A full load: the app's `me` (roles, project list) then includes the new project.
        location.assign(paths.projectImport(project.id));
        return;
      }
      setErrors(toFormErrors(res.data, res.status));
    } catch {
      setErrors({ fields: {}, general: ["The server cannot be reached; nothing was created."] });
    } finally {
      setBusy(false);
    }
  };

  return (
    <>
      <TopBar me={me}>
        <Crumbs items={[{ label: "New project" }]} />
      </TopBar>
      <main class="page admin-page" data-testid="new-project-page">
        <div class="page-head">
          <div>
            <h1>New project</h1>
            <p class="muted">You become its admin; next you import its texts, add members and assign the work.</p>
          </div>
        </div>
        <form class="admin-form" onSubmit={submit} noValidate data-testid="new-project-form">
          <KindPicker value={kind} onValue={(patch) => {
              setKind((k) => ({ ...k, ...patch }));
              setErrors((e) => clearFields(e, ["kind", "form", "form_preset"]));
            }} messages={{ form: [...messagesFor(errors, "form", true), ...messagesFor(errors, "form_preset")], kind: messagesFor(errors, "kind") }} />
          <ProjectFields form={form} update={update} errors={errors} summaryTitle="The project was not created:" summaryTestId="project-errors" />
          <div class="launch-bar">
            <span class="muted">{kind.kind === "items" ? "Items come next" : "Texts come next"}: the import page opens once the project exists.</span>
            <a class="btn ghost" href="/" onClick={linkHandler("/")}>
              Cancel
            </a>
            <button type="submit" class="btn primary" disabled={busy} data-testid="create-project">
              {busy ? "Creating…" : "Create project"}
            </button>
          </div>
        </form>
      </main>
    </>
  );
}
