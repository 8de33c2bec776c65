import { describe, expect, it } from "vitest";
import { type AssignForm, buildAssign, buildMove, loadChanges, matchText, parseIds } from "./assignForm";

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

  it("sends the document list's filters for the documents matching them", () => {
    const filters = { q: " tax ", status: "in_progress", annotator: null, fewer: 1 };
    expect(buildAssign({ ...base, scope: "matching", filters, matchCount: 120 }).body).toEqual({ annotators: [1, 2, 3], per_document: 2, documents: "matching", filters: { q: "tax", status: "in_progress", fewer_than: 1 } });
    expect(buildAssign({ ...base, scope: "matching" }).body?.filters).toEqual({});
    expect(buildAssign({ ...base, scope: "matching", filters, matchCount: 0 }).errors.fields).toEqual({ filters: ["No document matches these filters."] });
    expect(buildAssign({ ...base, scope: "all", filters }).body).not.toHaveProperty("filters");
  });

  it("says how many documents match before assigning", () => {
    expect(matchText(null, true)).toBe("Counting the matching documents…");
    expect(matchText(12000, true)).toBe("12,000 documents match these filters.");
    expect(matchText(1, true)).toBe("1 document matches these filters.");
    expect(matchText(0, true)).toBe("No document matches these filters.");
    expect(matchText(20, false)).toBe("No filter: all 20 documents of the project.");
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
