import "./table.css";
import type { ComponentChildren, JSX } from "preact";
import { SortHeader } from "./SortHeader";

export interface Column<T> {
  key: string;
  label: ComponentChildren;
  /** The ordering field this column sorts by (server side); absent: not sortable. */
  sort?: string;
  class?: string;
  render(row: T): ComponentChildren;
}

/** A table of rows with optional sortable headers; the list itself is paged by the caller. */
export function DataTable<T>({
  columns,
  rows,
  rowKey,
  rowAttrs,
  ordering = "",
  onSort,
  loading = false,
  testId,
  class: cls,
}: {
  columns: Column<T>[];
  rows: T[];
  rowKey(row: T): string | number;
  rowAttrs?(row: T): JSX.HTMLAttributes<HTMLTableRowElement> & Record<string, unknown>;
  ordering?: string;
  onSort?(ordering: string): void;
  loading?: boolean;
  testId?: string;
  class?: string;
}) {
  return (
    <div class="table-wrap">
      <table class={`table data-table${cls ? ` ${cls}` : ""}${loading ? " loading" : ""}`} data-testid={testId} aria-busy={loading}>
        <thead>
          <tr>
            {columns.map((c) =>
              c.sort && onSort ? (
                <SortHeader key={c.key} field={c.sort} ordering={ordering} onSort={onSort} class={c.class}>
                  {c.label}
                </SortHeader>
              ) : (
                <th key={c.key} scope="col" class={c.class}>
                  {c.label}
                </th>
              ),
            )}
          </tr>
        </thead>
        <tbody>
          {rows.map((r) => (
            <tr key={rowKey(r)} {...(rowAttrs?.(r) ?? {})}>
              {columns.map((c) => (
                <td key={c.key} class={c.class}>
                  {c.render(r)}
                </td>
              ))}
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
