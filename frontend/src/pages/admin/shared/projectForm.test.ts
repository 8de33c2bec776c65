import { describe, expect, it } from "vitest";
import type { ProjectAdminDetail } from "../../../types";
import { EMPTY_PROJECT, buildCreate, buildPatch, formFromProject, parseCount } from "./projectForm";

const filled = { name: "  Study  ", description: " About ", guidelines: "# Read me\n", taxonomy: "3", perDocument: "2" };

describe("project form", () => {
  it("parses whole counts only", () => {
    expect(parseCount("3")).toBe(3);
    expect(parseCount(" 12 ")).toBe(12);
    expect(parseCount("0")).toBeNull();
    expect(parseCount("0", 0)).toBe(0);
    expect(parseCount("1.5")).toBeNull();
    expect(parseCount("-2")).toBeNull();
    expect(parseCount("")).toBeNull();
  });

  it("builds the create body with trimmed text and numbers", () => {
    const { body, errors } = buildCreate(filled);
    expect(errors.fields).toEqual({});
    expect(body).toEqual({ name: "Study", description: "About", guidelines: "# Read me\n", taxonomy: 3, annotators_per_document: 2 });
  });

  it("names every missing field instead of sending", () => {
    const { body, errors } = buildCreate({ ...EMPTY_PROJECT, perDocument: "0" });
    expect(body).toBeNull();
    expect(Object.keys(errors.fields).sort()).toEqual(["annotators_per_document", "name", "taxonomy"]);
  });

  it("patches only what changed", () => {
    const project = { id: 1, name: "Study", description: "About", guidelines: "G", taxonomy: { id: 3 }, annotators_per_document: 2, archived: false } as unknown as ProjectAdminDetail;
    const original = formFromProject(project);
    expect(original).toEqual({ name: "Study", description: "About", guidelines: "G", taxonomy: "3", perDocument: "2" });
    expect(buildPatch(original, original).body).toEqual({});
    expect(buildPatch(original, { ...original, name: "New ", perDocument: "3" }).body).toEqual({ name: "New", annotators_per_document: 3 });
    expect(buildPatch(original, { ...original, taxonomy: "4", guidelines: "H" }).body).toEqual({ taxonomy: 4, guidelines: "H" });
    expect(buildPatch(original, { ...original, name: " " }).body).toBeNull();
  });

  it("patches the justification templates setting only when it changed", () => {
    const project = { id: 1, name: "S", description: "", guidelines: "", taxonomy: { id: 3 }, annotators_per_document: 1, archived: false, justification_templates: "optional" } as unknown as ProjectAdminDetail;
    const original = formFromProject(project);
    expect(original.templates).toBe("optional");
    expect(buildPatch(original, original).body).toEqual({});
    expect(buildPatch(original, { ...original, templates: "required" }).body).toEqual({ justification_templates: "required" });
  });

  it("prefers taxonomy_id over the nested taxonomy", () => {
    const p = { name: "x", description: "", guidelines: "", taxonomy: { id: 1 }, taxonomy_id: 9, annotators_per_document: 1 } as unknown as ProjectAdminDetail;
    expect(formFromProject(p).taxonomy).toBe("9");
  });
});
