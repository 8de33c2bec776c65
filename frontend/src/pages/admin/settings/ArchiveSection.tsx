// Archive a project (it leaves everyone's list of active projects; nothing is deleted) or
// bring it back, after a confirmation.

import { useState } from "preact/hooks";
import { ConfirmDialog, sendJson } from "../../../components/form";
import { toFormErrors } from "../../../lib/formErrors";
import type { ProjectAdminDetail } from "../../../types";

export function ArchiveSection({ project, onChanged }: { project: ProjectAdminDetail; onChanged: (p: ProjectAdminDetail) => void }) {
  const [open, setOpen] = useState(false);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const archiving = !project.archived;

  const confirm = async () => {
    setBusy(true);
    try {
      const res = await sendJson("PATCH", `/api/projects/${project.id}/`, { archived: archiving });
      if (res.status === 200) {
        onChanged(res.data as ProjectAdminDetail);
        setError(null);
        setOpen(false);
      } else {
        const e = toFormErrors(res.data, res.status);
        setError([...e.general, ...Object.values(e.fields).flat()].join(" "));
        setOpen(false);
      }
    } catch {
      setError("The server cannot be reached; nothing changed.");
      setOpen(false);
    } finally {
      setBusy(false);
    }
  };

  return (
    <section class="panel admin-section danger-zone" aria-labelledby="archive-title" data-testid="archive-section">
      <h2 id="archive-title">{archiving ? "Archive" : "Archived"}</h2>
      <p class="muted">
        {archiving
          ? "An archived project leaves the list of active projects for every member. Nothing is deleted and it can be restored."
          : "This project is archived: it is hidden from the list of active projects. Restore it to bring it back."}
      </p>
      {error && (
        <p class="form-error" role="alert">
          {error}
        </p>
      )}
      <button type="button" class={`btn ${archiving ? "danger" : ""}`} onClick={() => setOpen(true)} data-testid={archiving ? "archive-project" : "unarchive-project"}>
        {archiving ? "Archive this project…" : "Restore this project…"}
      </button>
      <ConfirmDialog
        open={open}
        title={archiving ? `Archive “${project.name}”?` : `Restore “${project.name}”?`}
        confirmLabel={archiving ? "Archive" : "Restore"}
        danger={archiving}
        busy={busy}
        onConfirm={() => void confirm()}
        onCancel={() => setOpen(false)}
        testId="archive-dialog"
      >
        <p>{archiving ? "Its members no longer see it among their active projects. Documents, annotations and runs are kept." : "It shows again among its members' active projects."}</p>
      </ConfirmDialog>
    </section>
  );
}
