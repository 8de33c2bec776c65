// The document list's state (page, size, search, filters, sort) <-> the page's URL query
// (?page=2&q=tax&status=done...), so back/forward and reload keep it, and <-> the API's
// query (?limit=&offset=&q=&status=&annotator=&fewer_than=&ordering=).

import { PAGE_SIZES, type PageSize } from "../../components/table";
import { queryString } from "../../lib/paging";

// "disagreement": documents where the model runs made into suggestions disagree most first
// (the annotators' default when the project's queue is ordered so)
export const ORDERINGS = ["position", "-position", "length", "-length", "updated", "-updated", "disagreement", "-disagreement"] as const;
export const STAFF_STATUSES = ["unassigned", "todo", "in_progress", "done"] as const;
export const MY_STATUSES = ["todo", "in_progress", "submitted"] as const;

export interface ListQuery {
  /** 1-based page number. */
  page: number;
  size: PageSize;
  q: string;
  status: string;
  /** Staff: documents assigned to this user id. */
  annotator: number | null;
  /** Staff: documents with fewer than this many submitted annotations. */
  fewer: number | null;
  ordering: string;
}

export const DEFAULT_QUERY: ListQuery = { page: 1, size: 25, q: "", status: "", annotator: null, fewer: null, ordering: "position" };

const positiveInt = (raw: string | null): number | null => {
  if (!raw || !/^\d+$/.test(raw)) return null;
  const n = Number(raw);
  return n > 0 ? n : null;
};

/** The list state in a URL query; anything unknown or malformed falls back to the default
 * (`fallback`: the list's default order, the project order unless the project orders its
 * annotators' queue by disagreement). */
export function parseQuery(search: string, fallback: string = DEFAULT_QUERY.ordering): ListQuery {
  const p = new URLSearchParams(search);
  const size = positiveInt(p.get("size"));
  const status = p.get("status") ?? "";
  const sort = p.get("sort") ?? "";
  return {
    page: positiveInt(p.get("page")) ?? 1,
    size: (PAGE_SIZES as readonly number[]).includes(size ?? 0) ? (size as PageSize) : DEFAULT_QUERY.size,
    q: (p.get("q") ?? "").trim(),
    status: ([...STAFF_STATUSES, ...MY_STATUSES] as readonly string[]).includes(status) ? status : "",
    annotator: positiveInt(p.get("annotator")),
    fewer: positiveInt(p.get("fewer")),
    ordering: (ORDERINGS as readonly string[]).includes(sort) ? sort : fallback,
  };
}

/** The URL query of a list state: only what differs from the default ("" when nothing). */
export function toSearch(q: ListQuery, fallback: string = DEFAULT_QUERY.ordering): string {
  return queryString({
    page: q.page > 1 ? q.page : null,
    size: q.size !== DEFAULT_QUERY.size ? q.size : null,
    q: q.q,
    status: q.status,
    annotator: q.annotator,
    fewer: q.fewer,
    sort: q.ordering !== fallback ? q.ordering : null,
  });
}

/** The list's search and filters (what selects documents, without page, size and sort). */
export type ListFilters = Pick<ListQuery, "q" | "status" | "annotator" | "fewer">;

/** The API's parameters (q, status, annotator, fewer_than) of the search and filters that are
 * set; the annotator and "fewer than" filters are staff-only. The document list sends them as
 * its query, and the assignment form as the `filters` of "the documents matching". */
export function filterParams(f: ListFilters, staff = true): { q?: string; status?: string; annotator?: number; fewer_than?: number } {
  const out: { q?: string; status?: string; annotator?: number; fewer_than?: number } = {};
  if (f.q.trim()) out.q = f.q.trim();
  if (f.status) out.status = f.status;
  if (staff && f.annotator) out.annotator = f.annotator;
  if (staff && f.fewer) out.fewer_than = f.fewer;
  return out;
}

/** The API request for a list state; the annotator and "fewer than" filters are staff-only. */
export function apiUrl(projectId: number, q: ListQuery, staff: boolean): string {
  return `/api/projects/${projectId}/documents/${queryString({
    limit: q.size,
    offset: (q.page - 1) * q.size,
    ...filterParams(q, staff),
    ordering: q.ordering,
  })}`;
}

/** The smallest list request whose `count` says how many documents the filters match (staff). */
export function countUrl(projectId: number, f: ListFilters): string {
  return `/api/projects/${projectId}/documents/${queryString({ limit: 1, ...filterParams(f) })}`;
}

/** A change of the list state: any change but the page itself goes back to page 1. */
export function update(q: ListQuery, patch: Partial<ListQuery>): ListQuery {
  const next = { ...q, ...patch };
  if (!("page" in patch)) next.page = 1;
  return next;
}

/** Whether a filter or search narrows the list (to say "no match" rather than "empty"). */
export function isFiltered(q: ListQuery): boolean {
  return Boolean(q.q || q.status || q.annotator || q.fewer);
}
