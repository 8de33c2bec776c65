// The project's last imports (newest first).

import type { ImportJob } from "../../../types";
import { jobSummary } from "../shared/importJob";

const when = (iso: string) => new Date(iso).toLocaleString("en-GB", { dateStyle: "medium", timeStyle: "short" });

export function RecentImports({ jobs, onOpen }: { jobs: ImportJob[]; onOpen: (job: ImportJob) => void }) {
  if (!jobs.length) return <p class="empty">No imports yet.</p>;
  return (
    <div class="table-wrap">
      <table class="table compact" data-testid="recent-imports">
        <thead>
          <tr>
            <th scope="col">When</th>
            <th scope="col">File</th>
            <th scope="col">Format</th>
            <th scope="col">Status</th>
            <th scope="col">Result</th>
          </tr>
        </thead>
        <tbody>
          {jobs.map((j) => (
            <tr key={j.id}>
              <td class="nowrap">{when(j.created_at)}</td>
              <td>
                <button type="button" class="link" onClick={() => onOpen(j)}>
                  {j.file_name}
                </button>
              </td>
              <td>{j.format}</td>
              <td>
                <span class={`status-pill import-${j.status}`}>{j.status}</span>
              </td>
              <td>{jobSummary(j)}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
