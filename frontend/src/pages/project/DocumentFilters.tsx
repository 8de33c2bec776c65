import { useEffect, useState } from "preact/hooks";
import { FilterSelect, PageSizeSelect, SearchBox } from "../../components/table";
import { useDebounced } from "../../hooks/useDebounced";
import type { AnnotatorProgress } from "../../types";
import { STATUS_TEXT } from "./format";
import { type ListQuery, MY_STATUSES, STAFF_STATUSES, update } from "./query";

/** Search, filters and page size of the document list (the search waits for typing to pause).
 * The assignment form reuses it without the page size (`pageSize={false}`). */
export function DocumentFilters({
  query,
  onChange,
  staff,
  annotators,
  perDocument,
  pageSize = true,
}: {
  query: ListQuery;
  onChange(next: ListQuery, opts?: { replace?: boolean }): void;
  staff: boolean;
  annotators: Pick<AnnotatorProgress, "id" | "username">[];
  perDocument: number;
  pageSize?: boolean;
}) {
  const [text, setText] = useState(query.q);
  const settled = useDebounced(text.trim(), 300);
  useEffect(() => {
    if (settled !== query.q) onChange(update(query, { q: settled }), { replace: true });
  }, [settled]);
  useEffect(() => {
    if (query.q !== text.trim()) setText(query.q); // back/forward
  }, [query.q]);

  const statuses = (staff ? STAFF_STATUSES : MY_STATUSES).map((s) => ({ value: s, label: STATUS_TEXT[s] }));
  return (
    <div class="toolbar list-toolbar">
      <SearchBox value={text} onInput={setText} label="Search documents" placeholder="Search text and names…" testId="doc-search" />
      <FilterSelect label="Status" value={query.status} options={statuses} onChange={(v) => onChange(update(query, { status: v }))} testId="status-filter" />
      {staff && (
        <>
          <FilterSelect
            label="Annotator"
            value={query.annotator ? String(query.annotator) : ""}
            options={annotators.map((a) => ({ value: String(a.id), label: a.username }))}
            onChange={(v) => onChange(update(query, { annotator: v ? Number(v) : null }))}
            testId="annotator-filter"
          />
          <FilterSelect
            label="Submitted"
            allLabel="Any number"
            value={query.fewer ? String(query.fewer) : ""}
            options={Array.from({ length: Math.max(1, perDocument) }, (_, i) => ({ value: String(i + 1), label: `fewer than ${i + 1}` }))}
            onChange={(v) => onChange(update(query, { fewer: v ? Number(v) : null }))}
            testId="fewer-filter"
          />
        </>
      )}
      {pageSize && <PageSizeSelect value={query.size} onChange={(size) => onChange(update(query, { size }))} />}
    </div>
  );
}
