import { Fragment } from "preact";
import { LevelGroupHeads, LevelScoreHeads } from "../../components/table";
import { formatScore } from "../../lib/format";
import type { RunScore } from "../../types";

const LEVELS = ["0", "1", "2"];

/** P/R/F1 per level, one row per stored report (profile and parser). */
export function ScoresTable({ scores }: { scores: RunScore[] }) {
  if (!scores.length) return <p class="muted">No scores are stored for this run yet.</p>;
  const levels = [...new Set([...LEVELS, ...scores.flatMap((s) => Object.keys(s.levels ?? {}))])].sort();
  return (
    <div class="table-wrap">
      <table class="table scores-table" data-testid="run-scores">
        <thead>
          <tr>
            <th scope="col" rowSpan={2}>
              Profile
            </th>
            <th scope="col" rowSpan={2}>
              Parser
            </th>
            <LevelGroupHeads levels={levels} />
          </tr>
          <tr>
            <LevelScoreHeads levels={levels} />
          </tr>
        </thead>
        <tbody>
          {scores.map((s) => (
            <tr key={`${s.profile}/${s.parser}`} data-profile={s.profile}>
              <th scope="row">{s.profile}</th>
              <td>{s.parser}</td>
              {levels.map((l) => {
                const v = s.levels?.[l];
                return (
                  <Fragment key={l}>
                    <td class="right tabular">{formatScore(v?.precision)}</td>
                    <td class="right tabular">{formatScore(v?.recall)}</td>
                    <td class="right tabular strong" data-level={l}>
                      {formatScore(v?.f1)}
                    </td>
                  </Fragment>
                );
              })}
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
