import { useState } from "preact/hooks";
import { Crumbs } from "../../components/Crumbs";
import { LoadErrorMessage } from "../../components/PageMessage";
import { TopBar } from "../../components/TopBar";
import { useProject } from "../../hooks/useProject";
import { usePageReady } from "../../hooks/usePageReady";
import { useResource } from "../../hooks/useResource";
import { queryString } from "../../lib/paging";
import { paths } from "../../router";
import type { Leaderboard, Me, Profile } from "../../types";
import { ComparePair } from "../../components/ComparePair";
import { MetricLegend } from "../../components/MetricLegend";
import { pairOptions } from "../../lib/pairs";
import { LabelChart } from "./LabelChart";
import { LeaderboardTable } from "./LeaderboardTable";
import { PROFILES, ProfileSwitch } from "./ProfileSwitch";

function initialProfile(): Profile {
  const p = new URLSearchParams(location.search).get("profile");
  return PROFILES.some((x) => x.id === p) ? (p as Profile) : "paper";
}

export function LeaderboardPage({ me, projectId, goldId }: { me: Me; projectId: number; goldId: number }) {
  const [profile, setProfile] = useState<Profile>(initialProfile);
  const project = useProject(projectId);
  const api = (format?: string) => `/api/evaluation/leaderboard/${queryString({ gold_standard: goldId, profile, format })}`;
  const board = useResource<Leaderboard>(api());
  const data = board.data;
  usePageReady("leaderboard", data != null || board.error != null); // the table is on screen
  const stale = data && data.profile !== profile;
  const about = PROFILES.find((p) => p.id === profile)?.about;

  const choose = (p: Profile) => {
    setProfile(p);
    history.replaceState(null, "", `${location.pathname}${p === "paper" ? "" : `?profile=${p}`}`);
  };

  const version = data?.gold_standard.version;
  const projectName = project?.name ?? data?.gold_standard.project_name ?? `Project ${projectId}`;
  const wrongProject = data && data.gold_standard.project !== projectId;

  return (
    <>
      <TopBar me={me}>
        <Crumbs
          items={[
            { label: projectName, href: paths.project(projectId) },
            { label: "Runs", href: paths.runs(projectId) },
            { label: `Leaderboard${version != null ? ` · gold v${version}` : ""}` },
          ]}
        />
      </TopBar>
      <main class="page wide" data-testid="leaderboard-page">
        {board.error && !data ? (
          <LoadErrorMessage error={board.error} onRetry={() => void board.reload()} />
        ) : wrongProject ? (
          <LoadErrorMessage error={{ status: 404, message: "" }} />
        ) : (
          <>
            <div class="page-head">
              <div>
                <h1>Leaderboard</h1>
                <p class="muted">
                  {projectName} · gold version {version ?? "…"}
                  {data && ` · ${data.gold_standard.documents} texts · averaged per ${data.average}`}
                </p>
              </div>
              <div class="head-actions">
                <ProfileSwitch value={profile} onChange={choose} />
                <a class="btn small" href={api("csv")} download={`leaderboard-gold-v${version ?? goldId}-${profile}.csv`} data-testid="download-csv">
                  Download CSV
                </a>
                <a class="btn small" href={api("latex")} download={`leaderboard-gold-v${version ?? goldId}-${profile}.tex`} data-testid="download-latex">
                  Download LaTeX
                </a>
              </div>
            </div>
            <p class="profile-line" data-testid="leaderboard-profile" data-profile={profile}>
              Profile <strong>{profile}</strong>
              {about && <span class="muted"> — {about}</span>}
              {stale && <span class="muted"> (loading…)</span>}
            </p>
            {board.error && (
              <p class="form-error" role="alert">
                {board.error.message}
              </p>
            )}
            {data?.note && <p class="note">{data.note}</p>}
            {!data && <p class="muted">Loading…</p>}
            {data && data.rows.length === 0 && (
              <p class="empty" data-testid="leaderboard-empty">
                No finished runs or submitted annotations for this gold version yet.
              </p>
            )}
            {data && data.rows.length > 0 && (
              <div class={stale ? "stale" : undefined}>
                <LeaderboardTable board={data} />
                <p class="muted small table-note">
                  F1 with its 95% bootstrap interval in brackets; the best F1 of each level among rows ranked together on the whole gold is in bold (a row scored on part of it never is). Rows are ranked by level-2 F1 only against rows
                  scored on the same texts; a run or annotator that covered part of the gold is ranked apart, with its coverage.{" "}
                  <span data-testid="significance-note">
                    “vs next”: the paired test against the row below on the same texts (difference of level-2 F1, its 95% paired bootstrap interval over texts, approximate
                    randomisation p); <strong>*</strong> marks a significant difference at {data.significance?.alpha ?? 0.05}, ≈ one that is not.
                  </span>
                </p>
                <MetricLegend names={[profile, ...(data.levels ?? [0, 1, 2]).map((l) => `level ${l}`), "precision", "recall", "f1", "unparseable"]} />
                <ComparePair
                  key={profile}
                  options={pairOptions(data.rows)}
                  url={(a, b) => `/api/evaluation/leaderboard/${queryString({ gold_standard: goldId, profile, compare: `${a},${b}` })}`}
                  units="texts"
                />
                <LabelChart board={data} />
              </div>
            )}
          </>
        )}
      </main>
    </>
  );
}
