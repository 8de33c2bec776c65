import { describe, expect, it } from "vitest";
import type { DocumentAnnotation, DocumentDetail, Me } from "../../types";
import { canAnnotateOwn, chooseAnnotator, requestedAnnotator, switchOptions } from "./view";

const me: Me = { id: 1, username: "rev", is_staff: false, projects: [] };
const doc: DocumentDetail = { id: 5, project: 2, external_id: "d", text: "A. B.", sentences: [] };
const ann = (id: number, username: string, status: "in_progress" | "submitted"): DocumentAnnotation => ({
  id: id * 10,
  annotator: { id, username },
  status,
  revision: 1,
  updated_at: null,
  submitted_at: null,
  spans: [],
});
const two = [ann(7, "ann1", "in_progress"), ann(8, "ann2", "submitted")];

describe("whose annotation the document page shows", () => {
  it("an annotator always sees their own, even before it exists", () => {
    expect(chooseAnnotator({ me, staff: false, doc, annotations: [], requested: 8 })).toBe(1);
  });

  it("staff see the requested annotator, else the first submitted one", () => {
    const input = { me, staff: true, doc, annotations: two, requested: null };
    expect(chooseAnnotator(input)).toBe(8);
    expect(chooseAnnotator({ ...input, requested: 7 })).toBe(7);
    expect(chooseAnnotator({ ...input, requested: 99 })).toBe(8); // unknown: the default
    expect(chooseAnnotator({ ...input, annotations: [] })).toBeNull(); // nobody started
    expect(canAnnotateOwn(input)).toBe(false);
    expect(switchOptions(input).map((o) => `${o.username}:${o.status}`)).toEqual(["ann1:in_progress", "ann2:submitted"]);
  });

  it("staff assigned to the document may annotate their own, listed first", () => {
    const input = { me, staff: true, doc: { ...doc, my_status: "todo" as const }, annotations: two, requested: null };
    expect(canAnnotateOwn(input)).toBe(true);
    expect(chooseAnnotator(input)).toBe(1);
    expect(switchOptions(input)[0]).toEqual({ id: 1, username: "rev", status: "not_started", mine: true });
    expect(chooseAnnotator({ ...input, requested: 7 })).toBe(7);
  });

  it("reads ?annotator= from the URL", () => {
    expect(requestedAnnotator("?annotator=12")).toBe(12);
    expect(requestedAnnotator("?annotator=x")).toBeNull();
    expect(requestedAnnotator("")).toBeNull();
  });
});
