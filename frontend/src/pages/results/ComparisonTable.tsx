import { formatScore } from "../../lib/format";
import { comparisonTitle, deltaText } from "./table";
import type { Delta, ItemLeaderboard } from "../../types";

function DeltaCell({ d }: { d: Delta | null | undefined }) {
  if (!d) return <td class="right muted">—</td>;
  return (
    <td class={`right tabular delta delta-${d.mark}`} title={`${formatScore(d.base, 3)} → ${formatScore(d.value, 3)}`} data-mark={d.mark} data-testid="delta">
      <span class="delta-values muted">
        {formatScore(d.base, 3)} → {formatScore(d.value, 3)}
      </span>{" "}
      <strong>{deltaText(d)}</strong>
    </td>
  );
}

/** Per model: chain-of-thought against direct answers and few-shot against zero-shot. */
export function ComparisonTable({ board }: { board: ItemLeaderboard }) {
  const { comparisons, tasks } = board;
  // no overall column when no comparison has one (every task on another scale than 0–1)
  const overall = comparisons.some((c) => c.overall != null);
  return (
    <section class="panel" aria-labelledby="comparison-title" data-testid="comparisons">
      <div class="panel-head">
        <h2 id="comparison-title">Prompting: chain-of-thought and few-shot</h2>
      </div>
      {comparisons.length === 0 ? (
        <p class="muted">No model has a zero-shot run beside a chain-of-thought or few-shot run yet.</p>
      ) : (
        <div class="table-wrap">
          <table class="table comparison-table" data-testid="comparison-table">
            <thead>
              <tr>
                <th scope="col">Model</th>
                <th scope="col">Comparison</th>
                {tasks.map((t) => (
                  <th scope="col" class="right" key={t.field} title={t.title}>
                    {t.field}
                  </th>
                ))}
                {overall && (
                  <th scope="col" class="right">
                    Overall
                  </th>
                )}
              </tr>
            </thead>
            <tbody>
              {comparisons.map((c) => (
                <tr key={`${c.profile ?? ""}/${c.row}/${c.baseline_row}`} data-comparison={c.comparison} data-model={c.model ?? ""} data-profile={c.profile ?? ""} data-testid="comparison-row">
                  <th scope="row">
                    {c.model}
                    <span class="lb-about">{[c.backend, c.profile && `profile ${c.profile}`].filter(Boolean).join(" · ")}</span>
                  </th>
                  <td>
                    {comparisonTitle(c)}
                    <span class="lb-about">
                      {c.variant_name} vs {c.baseline}
                    </span>
                  </td>
                  {tasks.map((t) => (
                    <DeltaCell key={t.field} d={c.tasks[t.field]} />
                  ))}
                  {overall && <DeltaCell d={c.overall} />}
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </section>
  );
}
