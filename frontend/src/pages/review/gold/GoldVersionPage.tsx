import { Crumbs } from "../../../components/Crumbs";
import { LoadErrorMessage } from "../../../components/PageMessage";
import { ProjectNav } from "../../../components/ProjectNav";
import { TopBar } from "../../../components/TopBar";
import { useResource } from "../../../hooks/useResource";
import { useProject } from "../../../hooks/useProject";
import { linkHandler, paths } from "../../../router";
import { type Me, NO_FALLACY, type VersionDetail } from "../../../types";
import { byDocument, summaryText } from "./diff";
import "./gold.css";

function Labels({ labels }: { labels: string[] }) {
  return (
    <>
      {labels.map((l) => (
        <span key={l} class={`gv-chip${l === NO_FALLACY ? " optional" : ""}`}>
          {l}
        </span>
      ))}
    </>
  );
}

/** One gold version: who, when, why, and what changed against the previous one. */
export function GoldVersionPage({ me, projectId, version }: { me: Me; projectId: number; version: number }) {
  const project = useProject(projectId);
  const url = `/api/projects/${projectId}/gold/${version}/`;
  const detail = useResource<VersionDetail>(url);
  const v = detail.data;
  const groups = v ? byDocument(v.diff) : [];
  return (
    <>
      <TopBar me={me}>
        <Crumbs items={[{ label: project?.name ?? `Project ${projectId}`, href: paths.project(projectId) }, { label: "Gold versions", href: paths.goldVersions(projectId) }, { label: `v${version}` }]} />
      </TopBar>
      <ProjectNav me={me} projectId={projectId} role={project?.role} active="gold" />
      <main class="page wide" data-testid="gold-version">
        {detail.error && !v && <LoadErrorMessage error={detail.error} onRetry={() => void detail.reload()} />}
        {!v && !detail.error && <p class="muted">Loading…</p>}
        {v && (
          <>
            <div class="page-head">
              <div>
                <h1>
                  Gold version {v.version} <span class={`gv-status ${v.status}`}>{v.status}</span>
                </h1>
                <p class="muted">
                  {v.published_at ? `Published ${new Date(v.published_at).toLocaleString()}${v.published_by ? ` by ${v.published_by}` : ""}` : "Not published yet"} · {v.documents} document(s), {v.spans}{" "}
                  span(s){v.source ? ` · from ${v.source}` : ""}
                </p>
                {v.note && <p class="gv-note">{v.note}</p>}
              </div>
              <div>
                {v.status === "published" && (
                  <a class="btn" href={`${url}export/`} download>
                    Export (MAFALDA JSONL)
                  </a>
                )}{" "}
                <a class="btn ghost" href={url}>
                  JSON
                </a>
              </div>
            </div>
            <h2>Changes {v.diff.previous ? `since v${v.diff.previous}` : "(first version)"}</h2>
            <p data-testid="diff-summary">
              {summaryText(v.diff.summary)} spans
              {v.diff.summary.documents_added ? ` · ${v.diff.summary.documents_added} document(s) added` : ""}
              {v.diff.summary.documents_removed ? ` · ${v.diff.summary.documents_removed} document(s) removed` : ""}
            </p>
            {groups.length === 0 && <p class="muted">No span changed.</p>}
            {groups.map((g) => (
              <section key={g.document} class="panel gv-doc" data-testid={`diff-doc-${g.document}`}>
                <h3>
                  <a href={paths.adjudicate(projectId, g.document)} onClick={linkHandler(paths.adjudicate(projectId, g.document))}>
                    {g.name || `Document ${g.document}`}
                  </a>
                </h3>
                <ul class="gv-changes">
                  {g.added.map((s) => (
                    <li key={`a${s.start}-${s.end}`} class="added" data-testid="diff-added">
                      <b>+</b> <q>{s.text}</q> <Labels labels={s.labels} />
                    </li>
                  ))}
                  {g.removed.map((s) => (
                    <li key={`r${s.start}-${s.end}`} class="removed" data-testid="diff-removed">
                      <b>−</b> <q>{s.text}</q> <Labels labels={s.labels} />
                    </li>
                  ))}
                  {g.changed.map((s) => (
                    <li key={`c${s.start}-${s.end}`} class="changed" data-testid="diff-changed">
                      <b>~</b> <q>{s.text}</q> <Labels labels={s.before} /> → <Labels labels={s.after} />
                    </li>
                  ))}
                </ul>
              </section>
            ))}
          </>
        )}
      </main>
    </>
  );
}
