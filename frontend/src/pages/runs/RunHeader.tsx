import { RunStatusBadge } from "../../components/RunStatusBadge";
import { DASH, LEVEL_NAMES, formatDateTime, formatDuration, variantLabel } from "../../lib/format";
import { linkHandler, paths } from "../../router";
import type { RunDetail } from "../../types";

export function RunHeader({ run }: { run: RunDetail }) {
  const gold = run.gold_standard;
  return (
    <header class="run-header">
      <div class="run-title">
        <h1 data-testid="run-name">{run.name}</h1>
        <RunStatusBadge status={run.status} testId="run-status" />
        {run.imported && <span class="badge subtle">imported</span>}
      </div>
      <dl class="meta-grid" data-testid="run-meta">
        <div>
          <dt>Model</dt>
          <dd class="mono-cell" data-testid="run-model">
            {run.model_label || DASH}
          </dd>
        </div>
        <div>
          <dt>Backend</dt>
          <dd data-testid="run-backend">{run.backend || DASH}</dd>
        </div>
        <div>
          <dt>Variant</dt>
          <dd data-testid="run-variant">
            {variantLabel(run.prompt_variant)}
            {run.prompt_variant && <span class="muted"> · {run.prompt_variant.kind}</span>}
          </dd>
        </div>
        <div>
          <dt>Level</dt>
          <dd data-testid="run-level">
            {run.level} <span class="muted">· {LEVEL_NAMES[run.level] ?? ""}</span>
          </dd>
        </div>
        <div>
          <dt>Gold version</dt>
          <dd data-testid="run-gold">
            {gold != null ? (
              <a href={paths.leaderboard(run.project, gold)} onClick={linkHandler(paths.leaderboard(run.project, gold))} title="Leaderboard of this gold version">
                v{run.gold_version ?? "?"}
              </a>
            ) : (
              DASH
            )}
            {run.limit != null && <span class="muted"> · {run.limit === 1 ? "first text only" : `first ${run.limit} texts`}</span>}
          </dd>
        </div>
        <div>
          <dt>Shards</dt>
          <dd>{Array.isArray(run.shards) ? run.shards.length || DASH : run.shards}</dd>
        </div>
        <div>
          <dt>Created</dt>
          <dd>
            {formatDateTime(run.created_at)}
            {run.created_by && <span class="muted"> · {run.created_by}</span>}
          </dd>
        </div>
        <div>
          <dt>Started / finished</dt>
          <dd>
            {formatDateTime(run.started_at)} / {formatDateTime(run.finished_at)}
          </dd>
        </div>
        <div>
          <dt>Generation</dt>
          <dd>
            {run.generated} generated · {formatDuration(run.generation_seconds)}
          </dd>
        </div>
      </dl>
    </header>
  );
}
