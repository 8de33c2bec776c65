import { describe, expect, it } from "vitest";
import { paths } from "../../router";
import { neighboursUrl } from "./navUrl";
import { requestedAnnotator } from "./view";

describe("the reviewer's annotator filter on previous / next", () => {
  it("asks for that annotator's neighbours and keeps the filter in the links", () => {
    const annotator = requestedAnnotator("?annotator=7");
    expect(neighboursUrl(12, annotator)).toBe("/api/documents/12/neighbours/?annotator=7");
    expect(paths.document(13, annotator ?? undefined)).toBe("/documents/13/?annotator=7");
  });
  it("asks for the plain queue without a filter", () => {
    const annotator = requestedAnnotator("");
    expect(neighboursUrl(12, annotator)).toBe("/api/documents/12/neighbours/");
    expect(paths.document(13, annotator ?? undefined)).toBe("/documents/13/");
  });
});
