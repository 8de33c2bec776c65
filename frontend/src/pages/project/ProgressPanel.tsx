import { ProgressBar } from "../../components/ProgressBar";
import { CountCells, CountsHead } from "../../components/table";
import type { ProjectProgress } from "../../types";
import { dateTime } from "./format";

/** Reviewers and admins: the project's totals (one definition of done) and each annotator's work. */
export function ProgressPanel({ progress, onAnnotator }: { progress: ProjectProgress; onAnnotator(id: number): void }) {
  const { totals: t, annotators_per_document: n } = progress;
  const figures: [string, number, string][] = [
    ["documents", t.documents, "Documents"],
    ["done", t.done, n === 1 ? "Done (submitted)" : `Done (${n} submitted)`],
    ["in_progress", t.in_progress, "In progress"],
    ["todo", t.todo, "To do"],
    ["unassigned", t.unassigned, "Unassigned"],
  ];
  return (
    <section class="progress-panel" aria-labelledby="progress-title" data-testid="progress-panel">
      <div class="progress-row">
        <ProgressBar done={t.done} total={t.documents} />
        <span class="progress-text" id="progress-title">
          {t.done} of {t.documents} documents done
        </span>
      </div>
      <dl class="progress-totals">
        {figures.map(([key, value, label]) => (
          <div key={key} data-total={key}>
            <dt>{label}</dt>
            <dd class="tabular">{value}</dd>
          </div>
        ))}
      </dl>
      {progress.annotators.length > 0 && (
        <details class="annotators-progress" open>
          <summary>Annotators ({progress.annotators.length})</summary>
          <div class="table-wrap">
            <table class="table compact" data-testid="annotator-progress">
              <CountsHead />
              <tbody>
                {progress.annotators.map((a) => (
                  <tr key={a.id} data-username={a.username}>
                    <td>
                      <button type="button" class="link" title={`Show ${a.username}'s documents`} onClick={() => onAnnotator(a.id)}>
                        {a.username}
                      </button>
                    </td>
                    <CountCells counts={a} />
                    <td class="muted small nowrap">{dateTime(a.last_active)}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        </details>
      )}
    </section>
  );
}
