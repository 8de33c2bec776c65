import { describe, expect, it } from "vitest";
import { pageInfo, queryString } from "./paging";

describe("pagination", () => {
  it("describes a page", () => {
    expect(pageInfo(230, 50, 50)).toMatchObject({ from: 51, to: 100, page: 2, pages: 5, hasPrevious: true, hasNext: true, text: "51–100 of 230" });
    expect(pageInfo(230, 200, 50)).toMatchObject({ from: 201, to: 230, page: 5, hasNext: false });
    expect(pageInfo(0, 0, 50)).toMatchObject({ from: 0, to: 0, page: 1, pages: 1, hasPrevious: false, hasNext: false, text: "0 of 0" });
    expect(pageInfo(50, 0, 50)).toMatchObject({ pages: 1, hasNext: false, text: "1–50 of 50" });
  });

  it("builds query strings without empty values", () => {
    expect(queryString({ limit: 50, offset: 0, unparseable: true, search: "" , document: null })).toBe("?limit=50&offset=0&unparseable=true");
    expect(queryString({ search: "a b&c", unparseable: false })).toBe("?search=a+b%26c");
    expect(queryString({})).toBe("");
  });
});
