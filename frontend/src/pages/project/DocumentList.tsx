import { useLayoutEffect, useMemo, useRef } from "preact/hooks";
import { Pager } from "../../components/Pager";
import { DataTable } from "../../components/table";
import { useResource } from "../../hooks/useResource";
import { paths } from "../../router";
import type { AnnotatorProgress, DocumentListItem, Page } from "../../types";
import { documentColumns } from "./columns";
import { DocumentFilters } from "./DocumentFilters";
import { EmptyState } from "./EmptyState";
import { apiUrl, DEFAULT_QUERY, isFiltered, type ListQuery, update } from "./query";

/** The project's documents, a page at a time from the server, with search, filters and sort. */
export function DocumentList({
  projectId,
  staff,
  admin,
  query,
  onQuery,
  annotators,
  perDocument,
}: {
  projectId: number;
  staff: boolean;
  admin: boolean;
  query: ListQuery;
  onQuery(next: ListQuery, opts?: { replace?: boolean }): void;
  annotators: AnnotatorProgress[];
  perDocument: number;
}) {
  const list = useResource<Page<DocumentListItem>>(apiUrl(projectId, query, staff));
  const columns = useMemo(() => documentColumns({ staff, perDocument, annotator: query.annotator }), [staff, perDocument, query.annotator]);
  const data = list.data;

  // The first page is on screen: the page is usable (bench/project_pages.py times this).
  const ready = useRef(false);
  useLayoutEffect(() => {
    if (ready.current || (!data && !list.error)) return;
    ready.current = true;
    requestAnimationFrame(() => {
      document.documentElement.setAttribute("data-ready", "project");
      performance.mark("app-ready");
    });
  }, [data, list.error]);
  useLayoutEffect(() => () => document.documentElement.removeAttribute("data-ready"), []);

  // A page past the end (documents went away, an old link): go to the last page.
  useLayoutEffect(() => {
    if (data && data.results.length === 0 && data.count > 0 && query.page > 1) {
      onQuery({ ...query, page: Math.max(1, Math.ceil(data.count / query.size)) }, { replace: true });
    }
  }, [data]);

  const filtered = isFiltered(query);
  const empty = data && data.count === 0 && !filtered;
  return (
    <section class="document-list" aria-label="Documents">
      {!empty && <DocumentFilters query={query} onChange={onQuery} staff={staff} annotators={annotators} perDocument={perDocument} />}
      {list.error && (
        <p class="form-error" role="alert">
          Could not load the documents: {list.error.message}
        </p>
      )}
      {!data && !list.error && <p class="muted">Loading…</p>}
      {empty &&
        (staff ? (
          <EmptyState testId="empty-no-documents" action={admin ? { href: paths.projectImport(projectId), label: "Import documents" } : undefined}>
            No documents yet{admin ? " — import some." : ". A project admin imports them."}
          </EmptyState>
        ) : (
          <EmptyState testId="empty-not-assigned">No document is assigned to you in this project yet. A project admin assigns them.</EmptyState>
        ))}
      {data && data.count === 0 && filtered && (
        <div class="empty" data-testid="empty-no-match">
          <p>No document matches{query.q ? ` “${query.q}”` : ""}.</p>
          <button type="button" class="btn" onClick={() => onQuery({ ...DEFAULT_QUERY, size: query.size, ordering: query.ordering })}>
            Clear search and filters
          </button>
        </div>
      )}
      {data && data.results.length > 0 && (
        <>
          <DataTable
            columns={columns}
            rows={data.results}
            rowKey={(d) => d.id}
            rowAttrs={(d) => ({ "data-testid": "doc-row", "data-doc-id": d.id, "data-status": d.status })}
            ordering={query.ordering}
            onSort={(ordering) => onQuery(update(query, { ordering }))}
            loading={list.loading}
            testId="document-table"
            class="documents-table"
          />
          <Pager
            count={data.count}
            offset={(query.page - 1) * query.size}
            limit={query.size}
            shown={data.results.length}
            onOffset={(offset) => onQuery(update(query, { page: Math.floor(offset / query.size) + 1 }))}
            testId="documents-pager"
          />
        </>
      )}
    </section>
  );
}
