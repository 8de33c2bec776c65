import type { Page } from "../../../types";

/** The items of a list answer, plain or paginated ({results}). */
export function listOf<T>(data: T[] | Page<T>): T[] {
  return Array.isArray(data) ? data : data.results;
}
