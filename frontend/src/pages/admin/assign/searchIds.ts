// The ids of every document of a project that a search matches (paging through the list).

import { get } from "../../../api";
import { queryString } from "../../../lib/paging";
import type { Page } from "../../../types";

const LIMIT = 100;
const MAX = 10000;

export async function searchDocumentIds(projectId: number, q: string): Promise<{ ids: number[]; count: number }> {
  const ids: number[] = [];
  let count = 0;
  for (let offset = 0; offset < MAX; offset += LIMIT) {
    const page = await get<Page<{ id: number }>>(`/api/projects/${projectId}/documents/${queryString({ q, limit: LIMIT, offset })}`);
    count = page.count;
    ids.push(...page.results.map((d) => d.id));
    if (!page.next || !page.results.length) break;
  }
  return { ids, count };
}
