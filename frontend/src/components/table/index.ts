// Shared pieces of server-paginated tables (the project's document list, the admin pages).
export { CountCells, CountHeaders, CountsHead, type Counts } from "./CountsHead";
export { DataTable, type Column } from "./DataTable";
export { SortHeader } from "./SortHeader";
export { FilterSelect, PageSizeSelect, SearchBox, PAGE_SIZES, type FilterOption, type PageSize } from "./controls";
export { formatSort, nextSort, parseSort, type Sort } from "./sort";
export { LevelGroupHeads, LevelScoreHeads } from "./LevelHeads";
