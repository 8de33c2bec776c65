import { Fragment } from "preact";
import { LevelGroupHeads, LevelScoreHeads } from "../../components/table";
import { DASH, formatDuration, formatScore, formatShare, formatWithInterval } from "../../lib/format";
import { linkHandler, paths } from "../../router";
import type { Leaderboard, LeaderboardRow } from "../../types";

/** After "F1": the column also shows the 95% interval. */
const F1_NOTE = (
  <>
    {" "}
    <span class="muted">[95%]</span>
  </>
);

function bestF1(rows: LeaderboardRow[], level: string): number | null {
  let best: number | null = null;
  for (const r of rows) {
    const f1 = r.levels?.[level]?.f1;
    if (f1 != null && (best == null || f1 > best)) best = f1;
  }
  return best;
}

function describe(row: LeaderboardRow): string {
  return [row.model, row.backend, row.variant].filter(Boolean).join(" · ");
}

export function LeaderboardTable({ board }: { board: Leaderboard }) {
  const levels = (board.levels?.length ? board.levels : [0, 1, 2]).map(String);
  const best = Object.fromEntries(levels.map((l) => [l, bestF1(board.rows, l)]));
  return (
    <div class="table-wrap">
      <table class="table leaderboard-table" data-testid="leaderboard-table">
        <caption class="sr-only">
          Models and annotators against gold version {board.gold_standard.version}, profile {board.profile}
        </caption>
        <thead>
          <tr>
            <th scope="col" rowSpan={2} class="num">
              #
            </th>
            <th scope="col" rowSpan={2}>
              Name
            </th>
            <LevelGroupHeads levels={levels} />
            <th scope="colgroup" colSpan={4} class="group">
              Cost
            </th>
          </tr>
          <tr>
            <LevelScoreHeads levels={levels} f1Note={F1_NOTE} />
            <th scope="col" class="right" title="Share of outputs the parser could not read">
              Unparseable
            </th>
            <th scope="col" class="right" title="Texts scored">
              Texts
            </th>
            <th scope="col" class="right">
              Requests
            </th>
            <th scope="col" class="right">
              Time
            </th>
          </tr>
        </thead>
        <tbody>
          {board.rows.map((r, i) => {
            const about = describe(r);
            return (
              <tr key={`${r.kind}-${r.id}`} data-kind={r.kind} data-name={r.name} data-id={r.id}>
                <td class="num">{i + 1}</td>
                <th scope="row" class="lb-name">
                  <span class="lb-name-line">
                    {r.kind === "run" ? (
                      <a href={paths.run(r.id)} onClick={linkHandler(paths.run(r.id))}>
                        {r.name}
                      </a>
                    ) : (
                      <span>{r.name}</span>
                    )}
                    <span class={`badge kind-${r.kind}`} data-testid="kind-badge">
                      {r.kind === "run" ? "model" : "human"}
                    </span>
                  </span>
                  {about && <span class="lb-about">{about}</span>}
                  {r.note && <span class="lb-about note-text">{r.note}</span>}
                </th>
                {levels.map((l) => {
                  const s = r.levels?.[l] ?? null;
                  const interval = s && s.f1_low != null && s.f1_high != null ? `95% bootstrap interval ${formatScore(s.f1_low)}–${formatScore(s.f1_high)}` : undefined;
                  return (
                    <Fragment key={l}>
                      <td class="right tabular">{formatScore(s?.precision)}</td>
                      <td class="right tabular">{formatScore(s?.recall)}</td>
                      <td class={`right tabular f1${s && best[l] != null && s.f1 === best[l] ? " best" : ""}`} title={interval} data-level={l} data-f1={s?.f1 ?? ""}>
                        {s ? formatWithInterval(s.f1, s.f1_low, s.f1_high) : DASH}
                      </td>
                    </Fragment>
                  );
                })}
                <td class="right tabular">{formatShare(r.unparseable_share)}</td>
                <td class="right tabular">{r.documents ?? DASH}</td>
                <td class="right tabular">{r.requests ?? DASH}</td>
                <td class="right tabular nowrap">{formatDuration(r.seconds)}</td>
              </tr>
            );
          })}
        </tbody>
      </table>
    </div>
  );
}
