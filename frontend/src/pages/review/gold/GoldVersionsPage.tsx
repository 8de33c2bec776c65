import { useState } from "preact/hooks";
import { http } from "../../../api";
import { Crumbs } from "../../../components/Crumbs";
import { ConfirmDialog } from "../../../components/form/ConfirmDialog";
import { LoadErrorMessage } from "../../../components/PageMessage";
import { ProjectNav } from "../../../components/ProjectNav";
import { TopBar } from "../../../components/TopBar";
import { useResource } from "../../../hooks/useResource";
import { useProject } from "../../../hooks/useProject";
import { linkHandler, navigate, paths } from "../../../router";
import type { GoldOverview, Me, VersionDetail } from "../../../types";
import { summaryText } from "./diff";
import "./gold.css";

const when = (iso: string | null) => (iso ? new Date(iso).toLocaleString() : "—");

/** The project's gold draft (publish it with a note) and its published versions. */
export function GoldVersionsPage({ me, projectId }: { me: Me; projectId: number }) {
  const project = useProject(projectId);
  const gold = useResource<GoldOverview>(`/api/projects/${projectId}/gold/`);
  const [open, setOpen] = useState(false);
  const [note, setNote] = useState("");
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);

  const publish = async () => {
    if (!note.trim()) {
      setError("Write a note: what changed in this version, and why.");
      return;
    }
    setBusy(true);
    setError(null);
    const res = await http("POST", `/api/projects/${projectId}/gold/publish/`, { note });
    setBusy(false);
    if (res.status === 201) {
      setOpen(false);
      navigate(paths.goldVersion(projectId, (res.data as VersionDetail).version));
    } else {
      const body = res.data as { detail?: string } | null;
      setError(body?.detail ?? `Not published (${res.status})`);
    }
  };

  const draft = gold.data?.draft;
  return (
    <>
      <TopBar me={me}>
        <Crumbs items={[{ label: project?.name ?? `Project ${projectId}`, href: paths.project(projectId) }, { label: "Gold versions" }]} />
      </TopBar>
      <ProjectNav me={me} projectId={projectId} role={project?.role} active="gold" />
      <main class="page wide" data-testid="gold-versions">
        <div class="page-head">
          <div>
            <h1>Gold standard versions</h1>
            <p class="muted">Published versions never change; adjudication edits the draft, and publishing makes it the next version.</p>
          </div>
        </div>
        {gold.error && !gold.data && <LoadErrorMessage error={gold.error} onRetry={() => void gold.reload()} />}
        {!gold.data && !gold.error && <p class="muted">Loading…</p>}
        {gold.data && (
          <>
            <section class="panel gv-draft" data-testid="gold-draft">
              <h2>Draft</h2>
              {draft ? (
                <>
                  <p>
                    Version {draft.version} (draft){draft.based_on ? `, based on v${draft.based_on}` : ""}: {draft.documents} document(s), {draft.spans} span(s).
                    {draft.created_by ? ` Started by ${draft.created_by}.` : ""}
                  </p>
                  <button type="button" class="btn primary" onClick={() => setOpen(true)} data-testid="publish-open">
                    Publish…
                  </button>{" "}
                  <a href={paths.adjudicationQueue(projectId)} onClick={linkHandler(paths.adjudicationQueue(projectId))}>
                    Continue adjudicating
                  </a>
                </>
              ) : (
                <p class="muted">
                  No draft. Saving a document in{" "}
                  <a href={paths.adjudicationQueue(projectId)} onClick={linkHandler(paths.adjudicationQueue(projectId))}>
                    adjudication
                  </a>{" "}
                  starts one from the latest published version.
                </p>
              )}
            </section>
            <h2>Published</h2>
            {gold.data.versions.length === 0 ? (
              <p class="empty">No published version yet.</p>
            ) : (
              <table class="table gv-table" data-testid="gold-versions-table">
                <thead>
                  <tr>
                    <th>Version</th>
                    <th>Published</th>
                    <th>By</th>
                    <th>Note</th>
                    <th>Documents</th>
                    <th>Spans</th>
                    <th>Changes</th>
                    <th />
                  </tr>
                </thead>
                <tbody>
                  {gold.data.versions.map((v) => (
                    <tr key={v.id} data-testid={`gold-version-${v.version}`}>
                      <td>
                        <a href={paths.goldVersion(projectId, v.version)} onClick={linkHandler(paths.goldVersion(projectId, v.version))}>
                          v{v.version}
                        </a>
                      </td>
                      <td>{when(v.published_at)}</td>
                      <td>{v.published_by ?? v.source ?? "—"}</td>
                      <td class="gv-note">{v.note}</td>
                      <td class="num">{v.documents}</td>
                      <td class="num">{v.spans}</td>
                      <td>{summaryText(v.summary)}</td>
                      <td>
                        <a href={`/api/projects/${projectId}/gold/${v.version}/export/`} download>
                          Export (MAFALDA JSONL)
                        </a>{" "}
                        ·{" "}
                        <a href={paths.leaderboard(projectId, v.id)} onClick={linkHandler(paths.leaderboard(projectId, v.id))}>
                          Leaderboard
                        </a>
                      </td>
                    </tr>
                  ))}
                </tbody>
              </table>
            )}
          </>
        )}
        <ConfirmDialog open={open} title={`Publish version ${draft?.version ?? ""}`} confirmLabel="Publish" busy={busy} onConfirm={() => void publish()} onCancel={() => setOpen(false)} testId="publish-dialog">
          <p>The draft becomes an immutable version: runs and exports can cite it forever.</p>
          <label class="field">
            <span>Note</span>
            <textarea rows={3} value={note} onInput={(e) => setNote((e.target as HTMLTextAreaElement).value)} data-testid="publish-note" />
          </label>
          {error && (
            <p class="form-error" role="alert">
              {error}
            </p>
          )}
        </ConfirmDialog>
      </main>
    </>
  );
}
