// The suggestions' report: acceptance per run and label, time per document with and
// without suggestions.

import { LoadErrorMessage } from "../../../components/PageMessage";
import type { Resource } from "../../../hooks/useResource";
import { Loading } from "../shared/AdminLayout";
import { type SuggestionReport, formatRate, formatTiming, rowsByRun } from "../shared/suggestions";

export function ReportSection({ report }: { report: Resource<SuggestionReport> }) {
  let body;
  if (report.error && !report.data) body = <LoadErrorMessage error={report.error} onRetry={() => void report.reload()} />;
  else if (!report.data) body = <Loading />;
  else {
    const { rows, timing } = report.data;
    body = (
      <>
        {rows.length === 0 ? (
          <p class="empty" data-testid="report-empty">
            No suggestion yet.
          </p>
        ) : (
          <div class="table-wrap">
            <table class="table compact" data-testid="report-table">
              <thead>
                <tr>
                  <th scope="col">Run</th>
                  <th scope="col">Label</th>
                  <th scope="col" class="num">Suggestions</th>
                  <th scope="col" class="num">Accepted</th>
                  <th scope="col" class="num">Rejected</th>
                  <th scope="col" class="num">Acceptance</th>
                </tr>
              </thead>
              <tbody>
                {rowsByRun(rows).flatMap((group) =>
                  group.rows.map((r, i) => (
                    <tr key={`${r.run}/${r.label}`} data-testid="report-row" data-run={r.run_name} data-label={r.label}>
                      {i === 0 && (
                        <th scope="row" rowSpan={group.rows.length}>
                          {group.name}
                        </th>
                      )}
                      <td>{r.label}</td>
                      <td class="num">{r.suggestions}</td>
                      <td class="num" data-column="accepted">
                        {r.accepted}
                      </td>
                      <td class="num" data-column="rejected">
                        {r.rejected}
                      </td>
                      <td class="num" data-column="rate">
                        {formatRate(r.acceptance_rate)}
                      </td>
                    </tr>
                  )),
                )}
              </tbody>
            </table>
          </div>
        )}
        <h3>Time per document</h3>
        <div class="table-wrap">
          <table class="table compact" data-testid="timing-table">
            <thead>
              <tr>
                <th scope="col">Annotations</th>
                <th scope="col" class="num">Submitted</th>
                <th scope="col">Mean time (median)</th>
              </tr>
            </thead>
            <tbody>
              <tr data-testid="timing-row" data-group="with">
                <th scope="row">With suggestions</th>
                <td class="num">{timing.with_suggestions.annotations}</td>
                <td>{formatTiming(timing.with_suggestions)}</td>
              </tr>
              <tr data-testid="timing-row" data-group="without">
                <th scope="row">Without suggestions</th>
                <td class="num">{timing.without_suggestions.annotations}</td>
                <td>{formatTiming(timing.without_suggestions)}</td>
              </tr>
              {timing.runs.map((r) => (
                <tr key={r.run} data-testid="timing-row" data-group={`run:${r.run_name}`}>
                  <th scope="row">With suggestions of {r.run_name}</th>
                  <td class="num">{r.annotations}</td>
                  <td>{formatTiming(r)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
        <p class="muted small" data-testid="timing-measure">
          {timing.measure}
        </p>
      </>
    );
  }
  return (
    <section class="panel admin-section" aria-labelledby="report-title" data-testid="suggestion-report">
      <div class="section-head">
        <h2 id="report-title">Report</h2>
        <button type="button" class="btn ghost small" onClick={() => void report.reload()} disabled={report.loading} data-testid="report-refresh">
          Refresh
        </button>
      </div>
      {body}
    </section>
  );
}
