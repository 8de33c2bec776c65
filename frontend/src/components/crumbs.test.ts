import { describe, expect, it } from "vitest";
import { collapsedCrumbs } from "./Crumbs";

describe("breadcrumbs on a narrow top bar", () => {
  it("keep the parent and the current page, the ones before collapse into …", () => {
    expect(collapsedCrumbs(4)).toEqual([true, true, false, false]); // Projects › P › Adjudication › doc
    expect(collapsedCrumbs(3)).toEqual([true, false, false]);
    expect(collapsedCrumbs(2)).toEqual([false, false]); // Projects › P: nothing to collapse
    expect(collapsedCrumbs(1)).toEqual([false]);
  });
});
