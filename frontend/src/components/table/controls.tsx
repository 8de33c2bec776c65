import "./table.css";

// The controls above a server-paginated list: search box, filter selects, page size.

export const PAGE_SIZES = [25, 50, 100] as const;
export type PageSize = (typeof PAGE_SIZES)[number];

export function SearchBox({
  value,
  onInput,
  label,
  placeholder,
  testId,
}: {
  value: string;
  onInput(value: string): void;
  label: string;
  placeholder?: string;
  testId?: string;
}) {
  return (
    <input
      type="search"
      class="search"
      aria-label={label}
      placeholder={placeholder ?? `${label}…`}
      value={value}
      onInput={(e) => onInput((e.target as HTMLInputElement).value)}
      data-testid={testId}
    />
  );
}

export interface FilterOption {
  value: string;
  label: string;
}

/** A labelled select; the first option ("" = no filter) is `allLabel`. */
export function FilterSelect({
  label,
  value,
  options,
  allLabel = "All",
  onChange,
  testId,
}: {
  label: string;
  value: string;
  options: FilterOption[];
  allLabel?: string;
  onChange(value: string): void;
  testId?: string;
}) {
  return (
    <label class="filter">
      <span class="filter-label">{label}</span>
      <select value={value} onChange={(e) => onChange((e.target as HTMLSelectElement).value)} data-testid={testId}>
        <option value="">{allLabel}</option>
        {options.map((o) => (
          <option key={o.value} value={o.value}>
            {o.label}
          </option>
        ))}
      </select>
    </label>
  );
}

export function PageSizeSelect({ value, onChange, testId = "page-size" }: { value: number; onChange(size: PageSize): void; testId?: string }) {
  return (
    <label class="filter">
      <span class="filter-label">Per page</span>
      <select value={String(value)} onChange={(e) => onChange(Number((e.target as HTMLSelectElement).value) as PageSize)} data-testid={testId}>
        {PAGE_SIZES.map((n) => (
          <option key={n} value={String(n)}>
            {n}
          </option>
        ))}
      </select>
    </label>
  );
}
