// Sorting of server-side lists: "field" ascending, "-field" descending (DRF's ordering).

export interface Sort {
  field: string;
  desc: boolean;
}

export function parseSort(ordering: string): Sort {
  return ordering.startsWith("-") ? { field: ordering.slice(1), desc: true } : { field: ordering, desc: false };
}

export function formatSort(sort: Sort): string {
  return `${sort.desc ? "-" : ""}${sort.field}`;
}

/** A click on a column header: that column ascending, or reversed when it is already the sort. */
export function nextSort(current: string, field: string): string {
  const s = parseSort(current);
  return s.field === field ? formatSort({ field, desc: !s.desc }) : field;
}
