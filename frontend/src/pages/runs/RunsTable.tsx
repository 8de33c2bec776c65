import { RunProgress } from "../../components/RunProgress";
import { RunStatusBadge } from "../../components/RunStatusBadge";
import { formatDateTime, variantLabel } from "../../lib/format";
import { linkHandler, paths } from "../../router";
import type { Run } from "../../types";

export function RunsTable({ runs }: { runs: Run[] }) {
  return (
    <div class="table-wrap">
      <table class="table runs-table" data-testid="runs-table">
        <thead>
          <tr>
            <th scope="col">Name</th>
            <th scope="col">Model</th>
            <th scope="col">Backend</th>
            <th scope="col">Variant</th>
            <th scope="col" class="right">
              Level
            </th>
            <th scope="col">Status</th>
            <th scope="col" class="progress-col">
              Progress
            </th>
            <th scope="col">Created</th>
          </tr>
        </thead>
        <tbody>
          {runs.map((r) => (
            <tr key={r.id} data-run-id={r.id} data-name={r.name} data-status={r.status}>
              <td class="run-name">
                <a href={paths.run(r.id)} onClick={linkHandler(paths.run(r.id))}>
                  {r.name}
                </a>
                {r.imported && <span class="badge subtle">imported</span>}
              </td>
              <td class="mono-cell">
                {r.model_label || "—"}
              </td>
              <td>{r.backend || "—"}</td>
              <td>{variantLabel(r.prompt_variant)}</td>
              <td class="right tabular">{r.level}</td>
              <td>
                <RunStatusBadge status={r.status} testId="run-status" />
              </td>
              <td class="progress-col">
                <RunProgress run={r} compact />
              </td>
              <td class="nowrap muted small" title={r.created_by ? `by ${r.created_by}` : undefined}>
                {formatDateTime(r.created_at)}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
