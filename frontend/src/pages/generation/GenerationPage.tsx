import { Crumbs } from "../../components/Crumbs";
import { LoadErrorMessage } from "../../components/PageMessage";
import { TopBar } from "../../components/TopBar";
import { usePoll, useResource } from "../../hooks/useResource";
import { linkHandler, paths } from "../../router";
import type { GenerationJob, Me, ReportRow } from "../../types";
import { fixed, percent } from "./logic";
import { ScoreChart } from "./ScoreChart";

const POLL_MS = 2000;

/** Generated items: the report per type and method (table + chart) and every job. */
export function GenerationPage({ me }: { me: Me }) {
  const jobs = useResource<GenerationJob[]>("/api/evaluation/generation-jobs/");
  const report = useResource<ReportRow[]>("/api/evaluation/generation-report/");
  const active = !!jobs.data?.some((j) => j.status === "queued" || j.status === "running");
  usePoll(active, async () => {
    await jobs.reload();
    await report.reload();
  }, POLL_MS);

  const fatal = jobs.error && !jobs.data ? jobs.error : null;
  return (
    <>
      <TopBar me={me}>
        <Crumbs items={[{ label: "Generation" }]} />
      </TopBar>
      <main class="page wide" data-testid="generation-page">
        {fatal ? (
          <LoadErrorMessage error={fatal} onRetry={() => void jobs.reload()} />
        ) : (
          <>
            <div class="page-head">
              <div>
                <h1>Generated items</h1>
                <p class="muted">Prolog-checked generation (SmartyPat) and the direct baseline.</p>
              </div>
              <div class="form-actions">
                <a class="btn" href={paths.generationRules()} onClick={linkHandler(paths.generationRules())}>
                  Rule files
                </a>
                <a class="btn primary" href={paths.generationNew()} onClick={linkHandler(paths.generationNew())} data-testid="generation-launch">
                  Generate items
                </a>
              </div>
            </div>
            <ReportTable rows={report.data ?? []} />
            <ScoreChart rows={report.data ?? []} />
            <section class="panel">
              <div class="panel-head">
                <h2>Jobs</h2>
              </div>
              {!jobs.data && <p class="muted">Loading…</p>}
              {jobs.data && jobs.data.length === 0 && <p class="muted">No generation job yet.</p>}
              {jobs.data && jobs.data.length > 0 && (
                <div class="table-wrap">
                  <table class="table compact" data-testid="generation-jobs">
                    <thead>
                      <tr>
                        <th>Job</th>
                        <th>Project</th>
                        <th>Type</th>
                        <th>Method</th>
                        <th>Model</th>
                        <th>Status</th>
                        <th>Facts valid / proposed</th>
                        <th>Items</th>
                        <th>Reviewed</th>
                      </tr>
                    </thead>
                    <tbody>
                      {jobs.data.map((j) => (
                        <tr key={j.id}>
                          <td>
                            <a href={paths.generationJob(j.id)} onClick={linkHandler(paths.generationJob(j.id))}>
                              #{j.id}
                            </a>
                          </td>
                          <td>{j.project_name}</td>
                          <td>
                            {j.type} <span class="muted small">v{j.rule_version}</span>
                          </td>
                          <td>{j.method}</td>
                          <td>
                            {j.backend}:{j.model_name}
                          </td>
                          <td>{j.status === "running" && j.stage ? `running (${j.stage})` : j.status}</td>
                          <td>{j.method === "prolog" ? `${j.valid} / ${j.proposed}` : "—"}</td>
                          <td>{j.items_kept}</td>
                          <td>
                            {j.review.accepted + j.review.rejected} / {j.items_kept}
                          </td>
                        </tr>
                      ))}
                    </tbody>
                  </table>
                </div>
              )}
            </section>
          </>
        )}
      </main>
    </>
  );
}

/** SmartyPat's Table 5 shape: per type and method, mean judge score and the share of 0/1/2/3. */
export function ReportTable({ rows }: { rows: ReportRow[] }) {
  return (
    <section class="panel" aria-labelledby="report-title">
      <div class="panel-head">
        <h2 id="report-title">Report per type and method</h2>
      </div>
      {rows.length === 0 ? (
        <p class="muted" data-testid="report-empty">
          No finished job yet.
        </p>
      ) : (
        <div class="table-wrap">
          <table class="table compact" data-testid="generation-report">
            <thead>
              <tr>
                <th>Type</th>
                <th>Method</th>
                <th>Jobs</th>
                <th>Facts proposed</th>
                <th>Valid</th>
                <th>Rejected</th>
                <th>Solutions</th>
                <th>Items</th>
                <th>Mean (0–3)</th>
                <th>0</th>
                <th>1</th>
                <th>2</th>
                <th>3</th>
                <th>Accepted by reviewers</th>
              </tr>
            </thead>
            <tbody>
              {rows.map((r) => (
                <tr key={`${r.type}/${r.method}`}>
                  <td>{r.type}</td>
                  <td>{r.method}</td>
                  <td>{r.jobs}</td>
                  <td>{r.facts.proposed ?? "—"}</td>
                  <td>{r.facts.valid ?? "—"}</td>
                  <td title={Object.entries(r.facts.by_reason).map(([k, v]) => `${k}: ${v}`).join(", ")}>{r.facts.rejected ?? "—"}</td>
                  <td>{r.satisfying ?? "—"}</td>
                  <td>{r.items}</td>
                  <td>{fixed(r.judge.mean)}</td>
                  {[0, 1, 2, 3].map((k) => (
                    <td key={k}>{percent(r.judge.share[String(k)])}</td>
                  ))}
                  <td>
                    {percent(r.review.acceptance_rate)}{" "}
                    <span class="muted small">
                      ({r.review.accepted} / {r.review.accepted + r.review.rejected})
                    </span>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </section>
  );
}
