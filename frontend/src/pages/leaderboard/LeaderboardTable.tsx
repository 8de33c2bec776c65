import { Fragment } from "preact";
import { ScrollX } from "../../components/ScrollX";
import { LevelGroupHeads, LevelScoreHeads } from "../../components/table";
import { isPartial } from "../../lib/coverage";
import { DASH, formatDuration, formatScore, formatShare } from "../../lib/format";
import { helpTitle } from "../../lib/metricHelp";
import { tooFewNote } from "../../lib/smallSample";
import { describeComparison, explainComparison, formatCoverage, formatDifference, formatP, groupRows } from "../../lib/significance";
import { linkHandler, paths } from "../../router";
import type { Leaderboard, LeaderboardRow } from "../../types";
import { bestPerLevel, kindBadge } from "./rows";

/** After "F1": the column also shows the 95% interval. */
const F1_NOTE = (
  <>
    {" "}
    <span class="muted">[95%]</span>
  </>
);

function describe(row: LeaderboardRow): string {
  return [row.model, row.harness ?? row.backend, row.variant].filter(Boolean).join(" · ");
}

/** F1 over its 95% interval (a second, smaller line: the column stays narrow). */
function F1({ score, low, high }: { score: number | null | undefined; low: number | null | undefined; high: number | null | undefined }) {
  const main = formatScore(score);
  if (main === DASH || low == null || high == null || !Number.isFinite(low) || !Number.isFinite(high)) return <>{main}</>;
  return (
    <>
      {main}
      <span class="lb-ci">
        {" "}
        [{formatScore(low)}–{formatScore(high)}]
      </span>
    </>
  );
}

function Row({ r, levels, best }: { r: LeaderboardRow; levels: string[]; best: Record<string, number | null> }) {
  const about = describe(r);
  const next = r.next;
  const badge = kindBadge(r);
  const tooFew = tooFewNote(next?.texts);
  const counts = !isPartial(r.coverage) && !r.baseline;
  return (
    <tr data-kind={r.kind} data-name={r.name} data-id={r.id} data-group={r.group} class={next?.significant ? "lb-differs" : undefined}>
      <td class="num">{r.rank ?? DASH}</td>
      <th scope="row" class="lb-name">
        <span class="lb-name-line">
          {r.kind === "run" ? (
            <a href={paths.run(r.id)} onClick={linkHandler(paths.run(r.id))}>
              {r.name}
            </a>
          ) : (
            <span>{r.name}</span>
          )}
          <span class={`badge ${badge.className}`} data-testid="kind-badge" title={badge.title}>
            {badge.text}
          </span>
          {r.imported && (
            <span class="badge subtle" data-testid="imported-badge" title={r.harness ? `Imported from a log of ${r.harness}` : "Imported outputs, not generated here"}>
              imported
            </span>
          )}
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
            <td class={`right tabular f1${s && counts && best[l] != null && s.f1 === best[l] ? " best" : ""}`} title={interval} data-level={l} data-f1={s?.f1 ?? ""}>
              {s ? <F1 score={s.f1} low={s.f1_low} high={s.f1_high} /> : DASH}
            </td>
          </Fragment>
        );
      })}
      <td class="tabular lb-next" data-testid="next-test" data-significant={next ? String(next.significant) : ""} title={[explainComparison(next), tooFew].filter(Boolean).join(" ") || undefined}>
        {next ? (
          <>
            <span class="nowrap">
              {next.significant ? <strong class="lb-mark">*</strong> : <span class="lb-mark muted">≈</span>} {formatDifference(next.difference)} · {formatP(next.p_value)}
            </span>
            <span class="lb-about">
              [{formatDifference(next.ci_low)}, {formatDifference(next.ci_high)}]
            </span>
            {tooFew && (
              <span class="lb-about note-text" data-testid="too-few" title={tooFew}>
                too few texts for p &lt; 0.05
              </span>
            )}
          </>
        ) : (
          DASH
        )}
      </td>
      <td class="right tabular">{formatShare(r.unparseable_share)}</td>
      <td class="right tabular" data-testid="coverage" title={r.coverage ? `${r.coverage.texts} of ${r.coverage.of} texts` : undefined}>
        {r.coverage ? formatCoverage(r.coverage) : (r.documents ?? DASH)}
      </td>
      <td class="right tabular">{r.requests ?? DASH}</td>
      <td class="right tabular nowrap">{formatDuration(r.seconds)}</td>
    </tr>
  );
}

export function LeaderboardTable({ board }: { board: Leaderboard }) {
  const levels = (board.levels?.length ? board.levels : [0, 1, 2]).map(String);
  const width = 2 + levels.length * 3 + 5;
  return (
    <ScrollX label="Leaderboard table" testId="leaderboard-scroll">
      <table class="table leaderboard-table" data-testid="leaderboard-table">
        <caption class="sr-only">
          Models and annotators against gold version {board.gold_standard.version}, profile {board.profile}
        </caption>
        <thead>
          <tr>
            <th scope="col" rowSpan={2} class="num">
              #
            </th>
            <th scope="col" rowSpan={2} class="lb-name-head">
              Name
            </th>
            <LevelGroupHeads levels={levels} />
            <th scope="col" rowSpan={2} class="lb-next-head" title="Paired test of level-2 F1 against the row below (same texts): difference, 95% paired bootstrap interval, approximate randomisation p">
              vs next
            </th>
            <th scope="colgroup" colSpan={4} class="group">
              Cost
            </th>
          </tr>
          <tr>
            <LevelScoreHeads levels={levels} f1Note={F1_NOTE} />
            <th scope="col" class="right" title={helpTitle("unparseable")}>
              Unparseable
            </th>
            <th scope="col" class="right" title="Texts scored, of the gold version's">
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
        {groupRows(board.rows).map((g) => {
          // the best F1 of each level among rows ranked together, scored on the whole gold
          const best = bestPerLevel(g.rows, levels);
          const versusNote = tooFewNote(g.rows[0]?.versus?.texts);
          return (
            <tbody key={g.group} data-testid="leaderboard-group" data-group={g.group}>
              {(g.group > 0 || g.coverage?.texts !== g.coverage?.of) && (
                <tr class="lb-group">
                  <th scope="colgroup" colSpan={width} data-testid="group-title">
                    {g.title}
                    {g.rows[0]?.versus && (
                      <span class="muted" title={explainComparison(g.rows[0].versus)}>
                        {" "}
                        · {g.rows[0].name} against {g.rows[0].versus.name} on their {g.rows[0].versus.texts} common texts: {describeComparison(g.rows[0].versus)}
                        {g.rows[0].versus.significant ? " *" : ""}
                      </span>
                    )}
                    {versusNote && (
                      <span class="lb-about note-text" data-testid="too-few-versus">
                        {versusNote}
                      </span>
                    )}
                  </th>
                </tr>
              )}
              {g.rows.map((r) => (
                <Row key={`${r.kind}-${r.id}`} r={r} levels={levels} best={best} />
              ))}
            </tbody>
          );
        })}
      </table>
    </ScrollX>
  );
}
