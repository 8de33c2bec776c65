// Each annotator's load: assigned, in progress, submitted, last active; after an assignment
// also how many documents it added.

import { CountCells, CountsHead } from "../../../components/table";
import type { AnnotatorProgress, ProjectProgress } from "../../../types";

const when = (iso: string | null) => (iso ? new Date(iso).toLocaleString("en-GB", { dateStyle: "medium", timeStyle: "short" }) : "—");

export function Totals({ progress }: { progress: ProjectProgress }) {
  const t = progress.totals;
  return (
    <p class="totals" data-testid="assign-totals">
      <strong>{t.documents}</strong> documents: <strong>{t.unassigned}</strong> unassigned, <strong>{t.todo}</strong> to do, <strong>{t.in_progress}</strong> in progress, <strong>{t.done}</strong> done
      <span class="muted"> (done = {progress.annotators_per_document} submitted)</span> · {t.assignments} assignments.
    </p>
  );
}

export function LoadsTable({ annotators, before }: { annotators: AnnotatorProgress[]; before: Map<number, number> | null }) {
  if (!annotators.length) return <p class="empty">No annotators yet: add some on the Members tab.</p>;
  return (
    <div class="table-wrap">
      <table class="table compact" data-testid="loads-table">
        <CountsHead />
        <tbody>
          {annotators.map((a) => {
            const was = before?.get(a.id);
            const delta = was == null ? 0 : a.assigned - was;
            return (
              <tr key={a.id} data-testid="load-row" data-username={a.username} data-assigned={a.assigned}>
                <th scope="row">{a.username}</th>
                <CountCells
                  counts={a}
                  assigned={
                    <>
                      {a.assigned}
                      {delta !== 0 && (
                        <span class={`delta ${delta > 0 ? "up" : "down"}`}>
                          {" "}
                          ({delta > 0 ? "+" : ""}
                          {delta})
                        </span>
                      )}
                    </>
                  }
                />
                <td class="nowrap muted">{when(a.last_active)}</td>
              </tr>
            );
          })}
        </tbody>
      </table>
    </div>
  );
}
