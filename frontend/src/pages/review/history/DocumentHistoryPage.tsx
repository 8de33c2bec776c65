import { useState } from "preact/hooks";
import { Crumbs } from "../../../components/Crumbs";
import { LoadErrorMessage } from "../../../components/PageMessage";
import { TopBar } from "../../../components/TopBar";
import { useResource } from "../../../hooks/useResource";
import { linkHandler, paths } from "../../../router";
import type { Me } from "../../../types";
import { compact, isLabelList, KIND_NAMES } from "./format";
import type { History } from "./types";
import "./history.css";

function Value({ v }: { v: unknown }) {
  if (isLabelList(v))
    return (
      <>
        {v.map((l) => (
          <span key={l} class="hist-chip">
            {l}
          </span>
        ))}
      </>
    );
  return <code>{compact(v)}</code>;
}

/** Every recorded change to a document's annotations, spans and gold draft, newest first. */
export function DocumentHistoryPage({ me, id }: { me: Me; id: number }) {
  const history = useResource<History>(`/api/documents/${id}/history/`);
  const [kind, setKind] = useState("");
  const rows = (history.data?.results ?? []).filter((r) => !kind || r.kind === kind);
  return (
    <>
      <TopBar me={me}>
        <Crumbs items={[{ label: `Document ${id}`, href: paths.document(id) }, { label: "History" }]} />
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
                <h1>History of document {id}</h1>
                <p class="muted">
                  Who changed what, when.{" "}
                  <a href={paths.document(id)} onClick={linkHandler(paths.document(id))}>
                    Open the document
                  </a>
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
              <table class="data-table hist-table" data-testid="history-table">
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
                    <tr key={i} data-testid="history-row">
                      <td>{new Date(r.at).toLocaleString()}</td>
                      <td>{r.user ?? "—"}</td>
                      <td>
                        {KIND_NAMES[r.kind] ?? r.kind} #{r.object_id} <span class="muted">({r.owner})</span>
                      </td>
                      <td>{r.action}</td>
                      <td>
                        {r.changes.map((c) => (
                          <div key={c.field} class="hist-change">
                            <b>{c.field}</b>: <Value v={c.before} /> → <Value v={c.after} />
                          </div>
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
