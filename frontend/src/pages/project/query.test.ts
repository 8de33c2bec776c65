import { describe, expect, it } from "vitest";
import { apiUrl, countUrl, DEFAULT_QUERY, filterParams, isFiltered, parseQuery, toSearch, update } from "./query";

describe("document list query <-> URL", () => {
  it("the default state is an empty query string, and back", () => {
    expect(toSearch(DEFAULT_QUERY)).toBe("");
    expect(parseQuery("")).toEqual(DEFAULT_QUERY);
  });

  it("round-trips every field through the URL", () => {
    const q = { page: 3, size: 50 as const, q: "tax plan", status: "done", annotator: 7, fewer: 2, ordering: "-length" };
    const search = toSearch(q);
    expect(search).toBe("?page=3&size=50&q=tax+plan&status=done&annotator=7&fewer=2&sort=-length");
    expect(parseQuery(search)).toEqual(q);
  });

  it("ignores malformed or unknown values", () => {
    expect(parseQuery("?page=-2&size=30&status=nope&annotator=x&fewer=0&sort=name")).toEqual(DEFAULT_QUERY);
    expect(parseQuery("?page=2.5&size=100").size).toBe(100);
    expect(parseQuery("?page=2.5").page).toBe(1);
  });

  it("maps to the API: limit/offset, filters for staff only", () => {
    const q = { ...DEFAULT_QUERY, page: 2, size: 50 as const, q: "x", status: "todo", annotator: 4, fewer: 2 };
    expect(apiUrl(9, q, true)).toBe("/api/projects/9/documents/?limit=50&offset=50&q=x&status=todo&annotator=4&fewer_than=2&ordering=position");
    expect(apiUrl(9, q, false)).toBe("/api/projects/9/documents/?limit=50&offset=50&q=x&status=todo&ordering=position");
  });

  it("gives the filters that are set as the API's parameters (for the list and for assignment)", () => {
    const f = { q: "  tax plan ", status: "in_progress", annotator: 4, fewer: 1 };
    expect(filterParams(f)).toEqual({ q: "tax plan", status: "in_progress", annotator: 4, fewer_than: 1 });
    expect(filterParams(f, false)).toEqual({ q: "tax plan", status: "in_progress" });
    expect(filterParams(DEFAULT_QUERY)).toEqual({});
    expect(filterParams({ ...DEFAULT_QUERY, q: "   " })).toEqual({});
  });

  it("counts the documents the filters match with a one-row request", () => {
    expect(countUrl(9, { q: "x", status: "", annotator: null, fewer: 1 })).toBe("/api/projects/9/documents/?limit=1&q=x&fewer_than=1");
    expect(countUrl(9, DEFAULT_QUERY)).toBe("/api/projects/9/documents/?limit=1");
  });

  it("a project that orders its queue by disagreement: that is the annotators' default", () => {
    const bare = parseQuery("", "disagreement");
    expect(bare.ordering).toBe("disagreement");
    expect(toSearch(bare, "disagreement")).toBe("");
    expect(apiUrl(9, bare, false)).toBe("/api/projects/9/documents/?limit=25&offset=0&ordering=disagreement");
    // the project order chosen explicitly stays in the URL, and comes back from it
    const byPosition = { ...bare, ordering: "position" };
    expect(toSearch(byPosition, "disagreement")).toBe("?sort=position");
    expect(parseQuery("?sort=position", "disagreement").ordering).toBe("position");
    expect(parseQuery("?sort=-disagreement").ordering).toBe("-disagreement");
  });

  it("a new search, filter, size or sort goes back to page 1; paging keeps the rest", () => {
    const q = { ...DEFAULT_QUERY, page: 4, status: "done" };
    expect(update(q, { q: "abc" })).toEqual({ ...q, q: "abc", page: 1 });
    expect(update(q, { page: 5 })).toEqual({ ...q, page: 5 });
    expect(isFiltered(q)).toBe(true);
    expect(isFiltered(DEFAULT_QUERY)).toBe(false);
  });
});
