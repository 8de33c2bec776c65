import { describe, expect, it } from "vitest";
import { type AssignForm, buildAssign, buildMove, loadChanges, parseIds } from "./assignForm";

const base: AssignForm = { annotators: [1, 2, 3], perDocument: "2", scope: "all", sampleSize: "", seed: "", documentIds: [] };

describe("assign form", () => {
  it("sends annotators, N and the scope", () => {
    expect(buildAssign(base).body).toEqual({ annotators: [1, 2, 3], per_document: 2, documents: "all" });
    expect(buildAssign({ ...base, scope: "unassigned" }).body?.documents).toBe("unassigned");
  });

  it("sends a seeded sample", () => {
    expect(buildAssign({ ...base, scope: "sample", sampleSize: "5", seed: "42" }).body).toEqual({ annotators: [1, 2, 3], per_document: 2, documents: "sample", sample_size: 5, seed: 42 });
    expect(buildAssign({ ...base, scope: "sample", sampleSize: "5" }).body).not.toHaveProperty("seed");
    expect(buildAssign({ ...base, scope: "sample", sampleSize: "" }).errors.fields).toHaveProperty("sample_size");
    expect(buildAssign({ ...base, scope: "sample", sampleSize: "2", seed: "x" }).errors.fields).toHaveProperty("seed");
  });

  it("sends the ids a search found", () => {
    expect(buildAssign({ ...base, scope: "selected", documentIds: [4, 5] }).body?.document_ids).toEqual([4, 5]);
    expect(buildAssign({ ...base, scope: "selected" }).body).toBeNull();
  });

  it("refuses N above the chosen annotators, and no annotators", () => {
    expect(buildAssign({ ...base, perDocument: "4" }).errors.fields).toHaveProperty("per_document");
    expect(buildAssign({ ...base, annotators: [] }).errors.fields).toHaveProperty("annotators");
  });

  it("parses document ids with ranges", () => {
    expect(parseIds("3, 5 7-9;3")).toEqual([3, 5, 7, 8, 9]);
    expect(parseIds("")).toEqual([]);
    expect(parseIds("3, x")).toBeNull();
    expect(parseIds("9-7")).toBeNull();
  });

  it("builds unassign and reassign requests", () => {
    expect(buildMove({ action: "unassign", from: "2", to: "", ids: "1,2" }, false)).toMatchObject({ path: "unassign/", body: { annotator: 2, document_ids: [1, 2], force: false } });
    expect(buildMove({ action: "reassign", from: "2", to: "3", ids: "1" }, true)).toMatchObject({ path: "reassign/", body: { from_annotator: 2, to_annotator: 3, document_ids: [1], force: true } });
    expect(buildMove({ action: "reassign", from: "2", to: "2", ids: "1" }, false).errors.fields).toHaveProperty("to_annotator");
    expect(buildMove({ action: "unassign", from: "", to: "", ids: "" }, false).errors.fields).toEqual({ annotator: ["Choose an annotator."], document_ids: ["Give at least one document id."] });
  });

  it("pairs loads before and after", () => {
    expect(loadChanges([{ id: 1, username: "a", assigned: 2 }], [{ id: 1, username: "a", assigned: 9 }, { id: 2, username: "b", assigned: 4 }])).toEqual([
      { id: 1, username: "a", before: 2, after: 9 },
      { id: 2, username: "b", before: 0, after: 4 },
    ]);
  });
});
