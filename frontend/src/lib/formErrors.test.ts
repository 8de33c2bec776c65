import { describe, expect, it } from "vitest";
import { NO_ERRORS, clearFields, hasErrors, mergeErrors, messagesFor, onlyCleared, summarize, toFormErrors } from "./formErrors";

describe("400 bodies to per-field messages", () => {
  it("keeps flat paths as the launch service sends them", () => {
    const e = toFormErrors({
      "models[0].model": ["no such file or folder: /x"],
      gold_standard: ["the gold version has no documents"],
      "prompt_variants[1]": ["zero-shot v1: bad"],
    });
    expect(e.fields["models[0].model"]).toEqual(["no such file or folder: /x"]);
    expect(e.fields.gold_standard).toEqual(["the gold version has no documents"]);
    expect(e.fields["prompt_variants[1]"]).toEqual(["zero-shot v1: bad"]);
    expect(e.general).toEqual([]);
  });

  it("flattens nested serializer errors", () => {
    const e = toFormErrors({ models: [{}, { backend: ['"x" is not a valid choice.'] }], params: { seed: ["A valid integer is required."] } });
    expect(e.fields).toEqual({
      "models[1].backend": ['"x" is not a valid choice.'],
      "params.seed": ["A valid integer is required."],
    });
  });

  it("puts detail, non_field_errors and plain strings in general", () => {
    expect(toFormErrors({ detail: "Not allowed." }).general).toEqual(["Not allowed."]);
    expect(toFormErrors({ non_field_errors: ["a", "b"] }).general).toEqual(["a", "b"]);
    expect(toFormErrors("<h1>Bad Request</h1>").general).toEqual(["<h1>Bad Request</h1>"]);
    expect(toFormErrors(null, 400).general).toEqual(["The request failed (400)."]);
    expect(toFormErrors({ level: "must be 0, 1 or 2" }).fields.level).toEqual(["must be 0, 1 or 2"]);
  });

  it("finds the messages of a field and of the fields under it", () => {
    const e = toFormErrors({
      "models[0].settings.gguf_file": ["must be a file name"],
      "models[0].settings": ["bad"],
      "models[0].model": ["required"],
      "models[10].model": ["other"],
    });
    expect(messagesFor(e, "models[0].settings")).toEqual(["bad"]);
    expect(messagesFor(e, "models[0].settings", true)).toEqual(["bad", "gguf_file: must be a file name"]);
    expect(messagesFor(e, "models[1].model")).toEqual([]);
    expect(messagesFor(e, "models[1]", true)).toEqual([]);
  });

  it("summarizes every message once and merges", () => {
    const a = toFormErrors({ detail: "x" });
    const b = toFormErrors({ limit: ["must be at least 1"] });
    const m = mergeErrors(a, b);
    expect(hasErrors(m)).toBe(true);
    expect(hasErrors({ fields: {}, general: [] })).toBe(false);
    expect(summarize(m, (p) => p.toUpperCase())).toEqual([
      { path: null, text: "x" },
      { path: "limit", text: "LIMIT: must be at least 1" },
    ]);
    expect(summarize(toFormErrors({ template: ["template: unknown placeholder {foo}"] }))).toEqual([
      { path: "template", text: "template: unknown placeholder {foo}" },
    ]);
  });
});

describe("clearFields", () => {
  const errors = toFormErrors({ name: ["Taken."], models: [{ model: ["Pick one."], settings: { base_url: ["No server."] } }], detail: "Refused." });

  it("drops a field's messages and those under it, keeps the rest", () => {
    const cleared = clearFields(errors, ["models[0].settings"]);
    expect(cleared.fields).toEqual({ name: ["Taken."], "models[0].model": ["Pick one."] });
    expect(cleared.general).toEqual(["Refused."]);
    expect(clearFields(errors, ["models"]).fields).toEqual({ name: ["Taken."] });
  });

  it("leaves a path that only starts alike, and returns the same object when nothing goes", () => {
    const named = toFormErrors({ name: ["Taken."], name_short: ["Too long."] });
    expect(Object.keys(clearFields(named, ["name"]).fields)).toEqual(["name_short"]);
    expect(clearFields(errors, ["description"])).toBe(errors);
  });

  it("tells a clearing from a new answer", () => {
    expect(onlyCleared(errors, clearFields(errors, ["name"]))).toBe(true);
    expect(onlyCleared(errors, toFormErrors({ name: ["Taken."] }))).toBe(false);
    expect(onlyCleared(NO_ERRORS, errors)).toBe(false);
  });
});
