// Grouping a version's diff by document for display.

import type { ChangedSpan, DiffSpan, VersionDetail } from "../../../types";

export interface DocumentDiff {
  document: number;
  name: string;
  added: DiffSpan[];
  removed: DiffSpan[];
  changed: ChangedSpan[];
}

export function byDocument(diff: VersionDetail["diff"]): DocumentDiff[] {
  const groups = new Map<number, DocumentDiff>();
  const group = (id: number, name: string) => {
    let g = groups.get(id);
    if (!g) groups.set(id, (g = { document: id, name, added: [], removed: [], changed: [] }));
    return g;
  };
  for (const s of diff.added) group(s.document, s.document_name).added.push(s);
  for (const s of diff.removed) group(s.document, s.document_name).removed.push(s);
  for (const s of diff.changed) group(s.document, s.document_name).changed.push(s);
  const order = (a: { start: number }, b: { start: number }) => a.start - b.start;
  return [...groups.values()].map((g) => ({ ...g, added: g.added.sort(order), removed: g.removed.sort(order), changed: g.changed.sort(order) }));
}

export const summaryText = (s: { added: number; removed: number; changed: number }) => `+${s.added} / −${s.removed} / ~${s.changed}`;
