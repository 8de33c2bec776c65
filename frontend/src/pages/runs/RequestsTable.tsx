import { Fragment } from "preact";
import { useEffect, useRef, useState } from "preact/hooks";
import { Pager } from "../../components/Pager";
import { useDebounced, useThrottled } from "../../hooks/useDebounced";
import { useResource } from "../../hooks/useResource";
import { formatDuration } from "../../lib/format";
import { queryString } from "../../lib/paging";
import type { Page, RunRequest } from "../../types";

const PAGE_SIZE = 50;

function Parsed({ r }: { r: RunRequest }) {
  if (r.unparseable || r.parsed_labels == null)
    return (
      <span class="badge warn" data-testid="unparseable">
        unparseable
      </span>
    );
  if (!r.parsed_labels.length) return <span class="muted small">none</span>;
  return (
    <span class="label-list">
      {r.parsed_labels.map((l) => (
        <span class="badge label" key={l}>
          {l}
        </span>
      ))}
    </span>
  );
}

function RequestDetail({ r }: { r: RunRequest }) {
  return (
    <div class="request-detail">
      <div>
        <h4>Prompt</h4>
        {r.prompt ? (
          <pre class="code" data-testid="request-prompt">
            {r.prompt}
          </pre>
        ) : (
          <p class="muted small" data-testid="request-prompt">
            No prompt stored (imported outputs).
          </p>
        )}
      </div>
      <div>
        <h4>Raw output</h4>
        <pre class="code" data-testid="request-output">
          {r.raw_output}
        </pre>
        {r.answer && r.answer !== r.raw_output && (
          <>
            <h4>Answer</h4>
            <pre class="code">{r.answer}</pre>
          </>
        )}
        <h4>Parsed labels</h4>
        <p>
          <Parsed r={r} />
        </p>
      </div>
    </div>
  );
}

/** Every request of a run: paginated, filterable, each row opening its prompt and output. */
/** `refreshKey`: changes when the run's requests may have changed (its status, its count). */
export function RequestsTable({ runId, refreshKey }: { runId: number; refreshKey: string }) {
  const [offset, setOffset] = useState(0);
  const [onlyUnparseable, setOnlyUnparseable] = useState(false);
  const [search, setSearch] = useState("");
  const query = useDebounced(search.trim(), 300);
  const [open, setOpen] = useState<Set<number>>(new Set());
  const url = `/api/evaluation/runs/${runId}/requests/${queryString({ unparseable: onlyUnparseable, search: query, limit: PAGE_SIZE, offset })}`;
  const page = useResource<Page<RunRequest>>(url);

  useEffect(() => setOffset(0), [query]);
  // New requests arrive while the run works: load the page again, at most every 5 s.
  const key = useThrottled(refreshKey, 5000);
  const firstKey = useRef(key);
  useEffect(() => {
    if (key !== firstKey.current) void page.reload();
    firstKey.current = key;
  }, [key]);

  const toggle = (id: number) =>
    setOpen((s) => {
      const n = new Set(s);
      if (n.has(id)) n.delete(id);
      else n.add(id);
      return n;
    });

  return (
    <section class="requests" aria-labelledby="requests-title">
      <div class="section-head">
        <h2 id="requests-title">Requests</h2>
        <div class="toolbar">
          <label class="check">
            <input type="checkbox" checked={onlyUnparseable} onChange={(e) => {
                setOnlyUnparseable((e.target as HTMLInputElement).checked);
                setOffset(0);
              }} data-testid="only-unparseable" />
            Only unparseable
          </label>
          <input
            type="search"
            class="search"
            placeholder="Search sentences and outputs…"
            aria-label="Search requests"
            value={search}
            onInput={(e) => setSearch((e.target as HTMLInputElement).value)}
            data-testid="requests-search"
          />
          <button type="button" class="btn small ghost" onClick={() => void page.reload()} disabled={page.loading} aria-label="Refresh the requests">
            ↻
          </button>
        </div>
      </div>
      {page.error && (
        <p class="form-error" role="alert">
          {page.error.message}
        </p>
      )}
      {!page.data && !page.error && <p class="muted">Loading…</p>}
      {page.data && page.data.count === 0 && (
        <p class="muted" data-testid="requests-empty">
          {onlyUnparseable || query ? "No request matches." : "No requests yet."}
        </p>
      )}
      {page.data && page.data.results.length > 0 && (
        <div class="table-wrap">
          <table class={`table requests-table${page.loading ? " loading" : ""}`} data-testid="requests-table">
            <thead>
              <tr>
                <th scope="col">
                  <span class="sr-only">Details</span>
                </th>
                <th scope="col">Document</th>
                <th scope="col" class="right">
                  Unit
                </th>
                <th scope="col">Text</th>
                <th scope="col">Parsed</th>
                <th scope="col" class="right">
                  Time
                </th>
              </tr>
            </thead>
            <tbody>
              {page.data.results.map((r) => {
                const isOpen = open.has(r.id);
                return (
                  <Fragment key={r.id}>
                    <tr data-request-id={r.id} data-unparseable={r.unparseable ? "true" : "false"} class={isOpen ? "open" : undefined}>
                      <td class="expand-cell">
                        <button
                          type="button"
                          class="btn small ghost expand"
                          aria-expanded={isOpen}
                          aria-controls={`request-${r.id}`}
                          aria-label={`${isOpen ? "Hide" : "Show"} prompt and output of ${r.document_name}, unit ${r.unit_index}`}
                          onClick={() => toggle(r.id)}
                          data-testid="request-expand"
                        >
                          {isOpen ? "▾" : "▸"}
                        </button>
                      </td>
                      <td class="nowrap">{r.document_name}</td>
                      <td class="right tabular">{r.unit_index}</td>
                      <td class="unit-text" title={r.unit_text}>
                        <div class="clamp">{r.unit_text}</div>
                      </td>
                      <td>
                        <Parsed r={r} />
                      </td>
                      <td class="right tabular nowrap small">
                        {r.from_cache ? <span class="badge subtle" title="Answered from the generation cache">cache</span> : formatDuration(r.seconds)}
                      </td>
                    </tr>
                    {isOpen && (
                      <tr class="detail-row" id={`request-${r.id}`}>
                        <td colSpan={6}>
                          <RequestDetail r={r} />
                        </td>
                      </tr>
                    )}
                  </Fragment>
                );
              })}
            </tbody>
          </table>
        </div>
      )}
      {page.data && page.data.count > 0 && (
        <Pager count={page.data.count} offset={offset} limit={PAGE_SIZE} shown={page.data.results.length} onOffset={setOffset} testId="requests-pager" />
      )}
    </section>
  );
}
