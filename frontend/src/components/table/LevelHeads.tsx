// The header cells of per-level score columns (P, R, F1 under "Level n"), shared by the
// leaderboard and a run's scores.

import { type ComponentChildren, Fragment } from "preact";
import { helpTitle } from "../../lib/metricHelp";

/** First header row: one "Level n" group of three columns per level. */
export function LevelGroupHeads({ levels }: { levels: string[] }) {
  return (
    <>
      {levels.map((l) => (
        <th scope="colgroup" colSpan={3} class="group" key={l} title={helpTitle(`level ${l}`) || undefined}>
          Level {l}
        </th>
      ))}
    </>
  );
}

/** Second header row: P, R and F1 (with `f1Note` after it) per level. */
export function LevelScoreHeads({ levels, f1Note }: { levels: string[]; f1Note?: ComponentChildren }) {
  return (
    <>
      {levels.map((l) => (
        <Fragment key={l}>
          <th scope="col" class="right" title={helpTitle("precision")}>
            P
          </th>
          <th scope="col" class="right" title={helpTitle("recall")}>
            R
          </th>
          <th scope="col" class="right" title={helpTitle("f1")}>
            F1{f1Note}
          </th>
        </Fragment>
      ))}
    </>
  );
}
