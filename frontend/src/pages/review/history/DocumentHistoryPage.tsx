import { useState } from "preact/hooks";
import { Crumbs } from "../../../components/Crumbs";
import { LoadErrorMessage } from "../../../components/PageMessage";
import { TopBar } from "../../../components/TopBar";
import { useProject } from "../../../hooks/useProject";
import { useResource } from "../../../hooks/useResource";
import { linkHandler, paths } from "../../../router";
import type { DocumentDetail, History, Me } from "../../../types";
import { type DiffLine, diffLines, KIND_NAMES, unknownBefore } from "./format";
import "./history.css";

function Line({ line }: { line: DiffLine }) {
  if (line.kind === "labels")
    return (
      <div class="hist-change" data-testid="hist-line">
        <span class="hist-field">{line.name}</span>
        {line.kept.map((l) => (
          <span key={l} class="hist-chip">
            {l}
          </span>
        ))}
        {line.added.map((l) => (
          <ins key={l} class="hist-chip hist-added" title="added">
            + {l}
          </ins>
        ))}
        {line.removed.map((l) => (
          <del key={l} class="hist-chip hist-removed" title="removed">
            − {l}
          </del>
        ))}
      </div>
    );
  return (
    <div class="hist-change" data-testid="hist-line">
      <span class="hist-field">{line.name}</span>
      {line.before !== null && <del class="hist-before">{line.before}</del>}
      {line.before !== null && line.after !== null && <span class="hist-arrow"> → </span>}
      {line.after !== null && <ins class="hist-after">{line.after}</ins>}
      {line.before === null && line.after === null && <span class="muted">—</span>}
    </div>
  );
}

/** Every recorded change to a document's annotations, spans and gold draft, newest first. */
export function DocumentHistoryPage({ me, id }: { me: Me; id: number }) {
  const history = useResource<History>(`/api/documents/${id}/history/`);
  // the document's name and project, once the history (staff only) has loaded
  const doc = useResource<DocumentDetail>(history.data ? `/api/documents/${id}/` : null).data;
  const project = useProject(doc?.project);
  const [kind, setKind] = useState("");
  const rows = (history.data?.results ?? []).filter((r) => !kind || r.kind === kind);
  const name = doc?.name || `Document ${id}`;
  const crumbs = [{ label: name, href: paths.document(id) }, { label: "History" }];
  if (project) crumbs.unshift({ label: project.name, href: paths.project(project.id) });
  return (
    <>
      <TopBar me={me}>
        <Crumbs items={crumbs} />
      </TopBar>
      <main class="page wide" data-testid="history-page">
        {history.error && !history.data ? (
          <LoadErrorMessage error={history.error} onRetry={() => void history.reload()} />
        ) : !history.data ? (
          <p class="muted">Loading…</p>
        ) : (
          <>
            <div class="page-head">
              <div>
                <h1>History of {name}</h1>
                <p class="muted">
                  Who changed what, when ({history.data.results.length} change(s) recorded).{" "}
                  <a href={paths.document(id)} onClick={linkHandler(paths.document(id))} data-testid="hist-document">
                    Open the document
                  </a>
                  {doc && (
                    <>
                      {" · "}
                      <a href={paths.adjudicate(doc.project, id)} onClick={linkHandler(paths.adjudicate(doc.project, id))}>
                        Adjudicate
                      </a>
                    </>
                  )}
                </p>
              </div>
              <label class="inline-field">
                <span>Show</span>
                <select value={kind} onChange={(e) => setKind((e.target as HTMLSelectElement).value)} data-testid="hist-kind">
                  <option value="">everything</option>
                  {Object.entries(KIND_NAMES).map(([k, name]) => (
                    <option key={k} value={k}>
                      {name}s
                    </option>
                  ))}
                </select>
              </label>
            </div>
            {rows.length === 0 ? (
              <p class="empty">No recorded change.</p>
            ) : (
              <table class="table hist-table" data-testid="history-table">
                <thead>
                  <tr>
                    <th>When</th>
                    <th>Who</th>
                    <th>What</th>
                    <th>Action</th>
                    <th>Changes</th>
                  </tr>
                </thead>
                <tbody>
                  {rows.map((r, i) => (
                    <tr key={i} data-testid="history-row" data-kind={r.kind}>
                      <td>{new Date(r.at).toLocaleString()}</td>
                      <td>{r.user ?? "—"}</td>
                      <td>
                        {KIND_NAMES[r.kind] ?? r.kind} #{r.object_id} <span class="muted hist-owner">{r.owner}</span>
                        {r.excerpt && (
                          <q class="hist-excerpt" data-testid="hist-excerpt">
                            {r.excerpt}
                          </q>
                        )}
                      </td>
                      <td>
                        {r.action}
                        {unknownBefore(r) && <span class="muted hist-owner">earlier state not recorded</span>}
                      </td>
                      <td>
                        {diffLines(r.changes).map((line) => (
                          <Line key={line.name} line={line} />
                        ))}
                      </td>
                    </tr>
                  ))}
                </tbody>
              </table>
            )}
          </>
        )}
      </main>
    </>
  );
}
