import { linkHandler, paths } from "../../router";
import type { GoldOption, Run } from "../../types";

export interface GoldLink {
  id: number;
  version: number | null;
  status?: string;
  documents?: number;
}

/** Gold versions from launch-options, plus any the listed runs point to. */
export function goldLinks(options: GoldOption[] | undefined, runs: Run[] | undefined): GoldLink[] {
  const byId = new Map<number, GoldLink>();
  for (const g of options ?? []) byId.set(g.id, g);
  for (const r of runs ?? []) {
    if (r.gold_standard != null && !byId.has(r.gold_standard)) byId.set(r.gold_standard, { id: r.gold_standard, version: r.gold_version });
  }
  return [...byId.values()].sort((a, b) => (b.version ?? 0) - (a.version ?? 0));
}

export function LeaderboardLinks({ projectId, golds }: { projectId: number; golds: GoldLink[] }) {
  if (!golds.length) return null;
  return (
    <section class="gold-links" aria-label="Leaderboards">
      <span class="eyebrow">Leaderboards</span>
      <ul>
        {golds.map((g) => {
          const href = paths.leaderboard(projectId, g.id);
          return (
            <li key={g.id}>
              <a class="btn small" href={href} onClick={linkHandler(href)} data-testid="leaderboard-link" data-gold={g.id}>
                Gold v{g.version ?? "?"}
                {g.status && <span class="muted"> · {g.status}</span>}
                {g.documents != null && <span class="muted"> · {g.documents} texts</span>}
              </a>
            </li>
          );
        })}
      </ul>
    </section>
  );
}
