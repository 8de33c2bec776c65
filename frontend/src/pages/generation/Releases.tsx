// The gold versions published from a project's accepted generated items.

import { useState } from "preact/hooks";
import { post } from "../../api";
import { useResource } from "../../hooks/useResource";
import { isProjectAdmin } from "../../lib/roles";
import { linkHandler, paths } from "../../router";
import type { Me, Release } from "../../types";

/** Published gold versions of the project's accepted items, and publishing one (admins). */
export function Releases({ me, projectId }: { me: Me; projectId: number }) {
  const url = `/api/evaluation/projects/${projectId}/generation-releases/`;
  const releases = useResource<Release[]>(url);
  const [note, setNote] = useState("");
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const admin = isProjectAdmin(me, projectId);

  const publish = async () => {
    setBusy(true);
    setError(null);
    try {
      await post(url, { note });
      setNote("");
      await releases.reload();
    } catch (e) {
      setError(String((e as Error).message ?? e));
    } finally {
      setBusy(false);
    }
  };

  return (
    <section class="panel" aria-labelledby="releases-title" data-testid="generation-releases">
      <div class="panel-head">
        <h2 id="releases-title">Gold versions of the accepted items</h2>
      </div>
      <p class="muted small">Publishing copies every accepted item of the project (edited sentence, intended type as gold) into a new item project that runs, exports and the leaderboard read.</p>
      {releases.data && releases.data.length > 0 ? (
        <ul>
          {releases.data.map((r) => (
            <li key={r.id} data-testid="generation-release">
              v{r.version}: {r.items} items{" "}
              {r.gold_project != null && (
                <a href={paths.project(r.gold_project)} onClick={linkHandler(paths.project(r.gold_project))}>
                  {r.gold_project_name}
                </a>
              )}
              {r.note && ` — ${r.note}`}
            </li>
          ))}
        </ul>
      ) : (
        <p class="muted">None published yet.</p>
      )}
      {admin && (
        <div class="form-actions">
          <input value={note} placeholder="Note" onInput={(e) => setNote((e.target as HTMLInputElement).value)} aria-label="Note" />
          <button class="btn primary" disabled={busy} onClick={() => void publish()} data-testid="generation-publish">
            Publish accepted items
          </button>
        </div>
      )}
      {error && (
        <p class="form-error" role="alert">
          {error}
        </p>
      )}
    </section>
  );
}
