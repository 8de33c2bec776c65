// Offset/limit pagination of the REST lists ({count, next, previous, results}).

export interface PageInfo {
  from: number;
  to: number;
  page: number;
  pages: number;
  hasPrevious: boolean;
  hasNext: boolean;
  text: string;
}

export function pageInfo(count: number, offset: number, limit: number, shown?: number): PageInfo {
  const size = Math.max(1, limit);
  const start = Math.max(0, Math.min(offset, Math.max(0, count - 1)));
  const n = shown ?? Math.max(0, Math.min(size, count - start));
  const from = count === 0 ? 0 : start + 1;
  const to = count === 0 ? 0 : start + n;
  const pages = Math.max(1, Math.ceil(count / size));
  const page = Math.min(pages, Math.floor(start / size) + 1);
  return {
    from,
    to,
    page,
    pages,
    hasPrevious: start > 0,
    hasNext: start + size < count,
    text: count === 0 ? "0 of 0" : `${from}–${to} of ${count}`,
  };
}

/** A query string from the given values, leaving out empty ones ("", null, false). */
export function queryString(params: Record<string, string | number | boolean | null | undefined>): string {
  const q = new URLSearchParams();
  for (const [k, v] of Object.entries(params)) {
    if (v === "" || v == null || v === false) continue;
    q.set(k, String(v));
  }
  const s = q.toString();
  return s ? `?${s}` : "";
}
