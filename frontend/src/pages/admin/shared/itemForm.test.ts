import { describe, expect, it } from "vitest";
import { EMPTY_KIND, buildItemColumns, buildKind, formatsFor, guessItemMapping } from "./itemForm";
import { EMPTY_PROJECT, buildCreate } from "./projectForm";

describe("item projects: kind and form", () => {
  it("sends a form preset, and lets the preset bring the taxonomy", () => {
    const choice = { ...EMPTY_KIND, kind: "items" as const, preset: "flub" };
    expect(buildKind(choice).body).toEqual({ kind: "items", form_preset: "flub" });
    const { body, errors } = buildCreate({ ...EMPTY_PROJECT, name: "FLUB" }, choice);
    expect(errors.fields).toEqual({});
    expect(body).toEqual({ name: "FLUB", description: "", guidelines: "", annotators_per_document: 2, kind: "items", form_preset: "flub" });
  });

  it("parses a custom JSON form and names a broken one", () => {
    const ok = { kind: "items" as const, preset: "", formJson: '{"fields": [{"name": "a", "kind": "free-text"}]}' };
    expect(buildKind(ok).body).toEqual({ kind: "items", form: { fields: [{ name: "a", kind: "free-text" }] } });
    expect(buildKind({ ...ok, formJson: "{oops" }).errors.fields.form[0]).toMatch(/not valid JSON/);
    expect(buildKind({ ...ok, formJson: "[]" }).errors.fields.form).toEqual(['The form is an object with a list of "fields".']);
    // a custom form still needs a taxonomy
    expect(Object.keys(buildCreate({ ...EMPTY_PROJECT, name: "x" }, ok).errors.fields)).toEqual(["taxonomy"]);
  });

  it("spans projects send no kind and keep the item formats away", () => {
    expect(buildKind(EMPTY_KIND).body).toEqual({});
    expect(formatsFor("spans")).not.toContain("flub");
    expect(formatsFor("items")).toEqual(["flub", "smartypat", "items", "hf"]);
    // A Hugging Face dataset folder holds either kind: both kinds take it.
    expect(formatsFor("spans")).toContain("hf");
  });
});

describe("items import: column mapping", () => {
  it("guesses roles and option columns from the header", () => {
    const m = guessItemMapping({ columns: ["qid", "question", "A", "B", "C", "gold", "explanation"], rows: 2, sample: [] });
    expect(m.columns).toEqual({ id: "qid", text: "question", answer: "gold", reference: "explanation" });
    expect(m.optionsMode).toBe("columns");
    expect(JSON.parse(buildItemColumns(m).json!)).toEqual({ text: "question", id: "qid", answer: "gold", reference: "explanation", options: ["A", "B", "C"] });
  });

  it("a JSON options column, and a missing text column is named", () => {
    const m = guessItemMapping({ columns: ["post", "options", "labels"], rows: 1, sample: [] });
    expect(m.optionsMode).toBe("json");
    expect(JSON.parse(buildItemColumns(m).json!)).toEqual({ text: "post", labels: "labels", options: "options" });
    const none = buildItemColumns({ columns: {}, optionsMode: "columns", optionColumns: ["A"] });
    expect(none.json).toBeNull();
    expect(Object.keys(none.errors.fields).sort()).toEqual(["columns.options", "columns.text"]);
  });
});
