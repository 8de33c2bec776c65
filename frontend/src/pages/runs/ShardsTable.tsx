import { Fragment } from "preact";
import { formatDateTime } from "../../lib/format";
import type { RunShard } from "../../types";

export function ShardsTable({ shards }: { shards: RunShard[] }) {
  return (
    <table class="table compact" data-testid="run-shards">
      <thead>
        <tr>
          <th scope="col">Shard</th>
          <th scope="col">Status</th>
          <th scope="col" class="right">
            Attempts
          </th>
          <th scope="col">Worker</th>
          <th scope="col">Started</th>
          <th scope="col">Finished</th>
        </tr>
      </thead>
      <tbody>
        {shards.map((s) => (
          <Fragment key={s.index}>
            <tr data-shard={s.index}>
              <td class="tabular">{s.index}</td>
              <td>
                <span class={`status-pill run-${s.status}`}>{s.status}</span>
              </td>
              <td class="right tabular">{s.attempts}</td>
              <td class="mono-cell">{s.worker || "—"}</td>
              <td class="small">{formatDateTime(s.started_at)}</td>
              <td class="small">{formatDateTime(s.finished_at)}</td>
            </tr>
            {s.error && (
              <tr class="detail-row">
                <td colSpan={6}>
                  <pre class="code error-pre">{s.error}</pre>
                </td>
              </tr>
            )}
          </Fragment>
        ))}
      </tbody>
    </table>
  );
}
