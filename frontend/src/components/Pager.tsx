import { pageInfo } from "../lib/paging";

/** "51–100 of 230" with Previous / Next, for an offset/limit list. */
export function Pager({
  count,
  offset,
  limit,
  shown,
  onOffset,
  testId = "pager",
}: {
  count: number;
  offset: number;
  limit: number;
  shown?: number;
  onOffset: (offset: number) => void;
  testId?: string;
}) {
  const info = pageInfo(count, offset, limit, shown);
  if (count <= limit && offset === 0) return <p class="pager-count muted small">{count === 1 ? "1 entry" : `${count} entries`}</p>;
  return (
    <nav class="pager" aria-label="Pages" data-testid={testId}>
      <button type="button" class="btn small" disabled={!info.hasPrevious} onClick={() => onOffset(Math.max(0, offset - limit))}>
        ‹ Previous
      </button>
      <span class="pager-text" aria-live="polite">
        {info.text} · page {info.page} of {info.pages}
      </span>
      <button type="button" class="btn small" disabled={!info.hasNext} onClick={() => onOffset(offset + limit)}>
        Next ›
      </button>
    </nav>
  );
}
