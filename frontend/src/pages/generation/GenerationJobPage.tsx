import type { ComponentChildren } from "preact";
import { useState } from "preact/hooks";
import { ApiError, post } from "../../api";
import { Crumbs } from "../../components/Crumbs";
import { LoadErrorMessage } from "../../components/PageMessage";
import { TopBar } from "../../components/TopBar";
import { usePoll, useResource } from "../../hooks/useResource";
import { isProjectAdmin } from "../../lib/roles";
import { linkHandler, paths } from "../../router";
import type { GeneratedItem, GenerationJob, Me, Release } from "../../types";
import { fieldMessages, fixed, itemMean, percent } from "./logic";

const POLL_MS = 1500;

/** One generation job: its progress and report, its items to review, and publishing. */
export function GenerationJobPage({ me, id }: { me: Me; id: number }) {
  const job = useResource<GenerationJob>(`/api/evaluation/generation-jobs/${id}/`);
  const items = useResource<GeneratedItem[]>(`/api/evaluation/generation-jobs/${id}/items/`);
  const active = job.data?.status === "queued" || job.data?.status === "running";
  usePoll(active, async () => {
    await job.reload();
    await items.reload();
  }, POLL_MS);

  if (job.error && !job.data) return <Frame me={me} id={id}>{<LoadErrorMessage error={job.error} onRetry={() => void job.reload()} />}</Frame>;
  const j = job.data;
  if (!j) return <Frame me={me} id={id}>{<p class="muted">Loading…</p>}</Frame>;
  const report = (j.report ?? {}) as { judge?: { mean: number | null; share: Record<string, number>; judgements: number; unparseable: number } };
  return (
    <Frame me={me} id={id}>
      <div class="page-head">
        <div>
          <h1>
            Generation job #{j.id}: {j.type} · {j.method}
          </h1>
          <p class="muted">
            {j.project_name} · {j.backend}:{j.model_name} · rule v{j.rule_version} · n = {j.n}
          </p>
        </div>
      </div>
      <section class="panel" data-testid="generation-progress">
        <div class="panel-head">
          <h2>Progress</h2>
        </div>
        <p data-testid="generation-status">
          Status: <strong>{j.status}</strong>
          {j.stage ? ` (${j.stage})` : ""}
        </p>
        {j.error && (
          <p class="form-error" role="alert">
            {j.error}
          </p>
        )}
        <ul>
          {j.method === "prolog" && (
            <>
              <li>
                Facts proposed {j.proposed}, valid {j.valid}, rejected {j.rejected}
                {Object.keys(j.rejections).length > 0 && ` (${Object.entries(j.rejections).map(([k, v]) => `${k} ${v}`).join(", ")})`}
              </li>
              <li>Combinations satisfying the rule: {j.satisfying}</li>
            </>
          )}
          <li>Items kept: {j.items_kept}</li>
          {report.judge && (
            <li>
              Judge: mean {fixed(report.judge.mean)}; scores 0/1/2/3: {[0, 1, 2, 3].map((k) => percent(report.judge?.share[String(k)])).join(" / ")} ({report.judge.judgements} judgements, {report.judge.unparseable} unreadable)
            </li>
          )}
          <li>
            Requests sent {j.requests_sent}, from the cache {j.from_cache}
          </li>
          <li>
            Reviewed: {j.review.accepted} accepted, {j.review.rejected} rejected, {j.review.pending} pending
          </li>
        </ul>
        {j.status === "done" && j.items_kept === 0 && <p class="muted">No item was kept{j.method === "prolog" && j.valid === 0 ? ": the model gave no valid fact." : "."}</p>}
      </section>
      <ReviewList items={items.data ?? []} onChange={() => void Promise.all([items.reload(), job.reload()])} />
      <Releases me={me} projectId={j.project} />
    </Frame>
  );
}

function Frame({ me, id, children }: { me: Me; id: number; children: ComponentChildren }) {
  return (
    <>
      <TopBar me={me}>
        <Crumbs items={[{ label: "Generation", href: paths.generation() }, { label: `Job ${id}` }]} />
      </TopBar>
      <main class="page wide" data-testid="generation-job-page">
        {children}
      </main>
    </>
  );
}

/** The items to review: accept (as is or edited), reject, or undo. */
export function ReviewList({ items, onChange }: { items: GeneratedItem[]; onChange: () => void }) {
  return (
    <section class="panel" aria-labelledby="review-title" data-testid="generation-review">
      <div class="panel-head">
        <h2 id="review-title">Review the items</h2>
      </div>
      {items.length === 0 && <p class="muted">No item to review.</p>}
      <ol class="generation-items">
        {items.map((item) => (
          <ReviewItem key={item.id} item={item} onChange={onChange} />
        ))}
      </ol>
    </section>
  );
}

function ReviewItem({ item, onChange }: { item: GeneratedItem; onChange: () => void }) {
  const [editing, setEditing] = useState(false);
  const [text, setText] = useState(item.edited_text || item.text);
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);

  const decide = async (decision: "accept" | "reject" | "pending", edited?: string) => {
    setBusy(true);
    setError(null);
    try {
      await post(`/api/evaluation/generation-items/${item.id}/review/`, edited === undefined ? { decision } : { decision, text: edited });
      setEditing(false);
      onChange();
    } catch (e) {
      const messages = e instanceof ApiError ? fieldMessages(e.data) : [];
      setError(messages.join("; ") || String((e as Error).message ?? e));
    } finally {
      setBusy(false);
    }
  };

  const mean = itemMean(item.scores);
  return (
    <li class={`generation-item review-${item.review}`} data-testid="generation-item" data-review={item.review}>
      {editing ? (
        <textarea rows={3} value={text} onInput={(e) => setText((e.target as HTMLTextAreaElement).value)} data-testid="item-edit-text" aria-label="Edited sentence" />
      ) : (
        <p class="item-text" data-testid="item-text">
          {item.edited_text || item.text}
          {item.edited_text && <span class="muted small"> (edited; generated: “{item.text}”)</span>}
        </p>
      )}
      <p class="muted small">
        Judge {item.scores.map((s) => (s == null ? "?" : s)).join(", ")}
        {mean != null && ` (mean ${fixed(mean)})`}
        {item.facts.length > 0 && ` · facts: ${item.facts.join(". ")}.`}
        {" · "}
        <span data-testid="item-review">{item.review}</span>
        {item.reviewed_by && ` by ${item.reviewed_by}`}
      </p>
      <div class="form-actions">
        {editing ? (
          <>
            <button class="btn small primary" disabled={busy} onClick={() => void decide("accept", text)} data-testid="item-save-edit">
              Accept edited
            </button>
            <button class="btn small ghost" disabled={busy} onClick={() => setEditing(false)}>
              Cancel
            </button>
          </>
        ) : (
          <>
            <button class="btn small primary" disabled={busy} onClick={() => void decide("accept")} data-testid="item-accept">
              Accept
            </button>
            <button class="btn small" disabled={busy} onClick={() => setEditing(true)} data-testid="item-edit">
              Edit
            </button>
            <button class="btn small" disabled={busy} onClick={() => void decide("reject")} data-testid="item-reject">
              Reject
            </button>
            {item.review !== "pending" && (
              <button class="btn small ghost" disabled={busy} onClick={() => void decide("pending")} data-testid="item-undo">
                Undo
              </button>
            )}
          </>
        )}
      </div>
      {error && (
        <p class="form-error" role="alert">
          {error}
        </p>
      )}
    </li>
  );
}

/** Published gold versions of the project's accepted items, and publishing one (admins). */
function Releases({ me, projectId }: { me: Me; projectId: number }) {
  const url = `/api/evaluation/projects/${projectId}/generation-releases/`;
  const releases = useResource<Release[]>(url);
  const [note, setNote] = useState("");
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const admin = isProjectAdmin(me, projectId);

  const publish = async () => {
    setBusy(true);
    setError(null);
    try {
      await post(url, { note });
      setNote("");
      await releases.reload();
    } catch (e) {
      setError(String((e as Error).message ?? e));
    } finally {
      setBusy(false);
    }
  };

  return (
    <section class="panel" aria-labelledby="releases-title" data-testid="generation-releases">
      <div class="panel-head">
        <h2 id="releases-title">Gold versions of the accepted items</h2>
      </div>
      <p class="muted small">Publishing copies every accepted item of the project (edited sentence, intended type as gold) into a new item project that runs, exports and the leaderboard read.</p>
      {releases.data && releases.data.length > 0 ? (
        <ul>
          {releases.data.map((r) => (
            <li key={r.id} data-testid="generation-release">
              v{r.version}: {r.items} items{" "}
              {r.gold_project != null && (
                <a href={paths.project(r.gold_project)} onClick={linkHandler(paths.project(r.gold_project))}>
                  {r.gold_project_name}
                </a>
              )}
              {r.note && ` — ${r.note}`}
            </li>
          ))}
        </ul>
      ) : (
        <p class="muted">None published yet.</p>
      )}
      {admin && (
        <div class="form-actions">
          <input value={note} placeholder="Note" onInput={(e) => setNote((e.target as HTMLInputElement).value)} aria-label="Note" />
          <button class="btn primary" disabled={busy} onClick={() => void publish()} data-testid="generation-publish">
            Publish accepted items
          </button>
        </div>
      )}
      {error && (
        <p class="form-error" role="alert">
          {error}
        </p>
      )}
    </section>
  );
}
