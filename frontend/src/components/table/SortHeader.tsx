import type { ComponentChildren } from "preact";
import { nextSort, parseSort } from "./sort";

/** A column header that sorts the list by `field` (click again to reverse). */
export function SortHeader({
  field,
  ordering,
  onSort,
  class: cls,
  children,
}: {
  field: string;
  ordering: string;
  onSort(ordering: string): void;
  class?: string;
  children: ComponentChildren;
}) {
  const s = parseSort(ordering);
  const on = s.field === field;
  return (
    <th scope="col" class={cls} aria-sort={on ? (s.desc ? "descending" : "ascending") : "none"}>
      <button type="button" class={`sort-btn${on ? " on" : ""}`} onClick={() => onSort(nextSort(ordering, field))} data-sort={field}>
        {children}
        <span class="sort-mark" aria-hidden="true">
          {on ? (s.desc ? "▾" : "▴") : "↕"}
        </span>
      </button>
    </th>
  );
}
