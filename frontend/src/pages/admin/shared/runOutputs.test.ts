import { describe, expect, it } from "vitest";
import { toFormData } from "../../../components/form/multipart";
import { EMPTY_OUTPUTS, answeredFields, buildOutputsImport, guessOutputColumns, isJsonName } from "./runOutputs";

const FORM = {
  fields: [
    { name: "types", kind: "ranked", title: "Fallacy types" },
    { name: "fallacious", kind: "detection" },
    { name: "clarity", kind: "likert" },
  ],
};

describe("model outputs import", () => {
  it("offers the fields a model answers, not ratings", () => {
    expect(answeredFields(FORM)).toEqual([
      { value: "types", label: "Fallacy types (ranked)" },
      { value: "fallacious", label: "fallacious (detection)" },
    ]);
    expect(answeredFields({})).toEqual([]);
    expect(answeredFields(undefined)).toEqual([]);
  });

  it("reads JSON by its name and guesses a CSV's id and output columns", () => {
    expect(isJsonName("gpt.jsonl")).toBe(true);
    expect(isJsonName("gpt.JSON")).toBe(true);
    expect(isJsonName("gpt.csv")).toBe(false);
    expect(guessOutputColumns({ columns: ["Post ID", "text", "Answer"], rows: 1, sample: [] })).toEqual({ idColumn: "Post ID", outputColumn: "Answer" });
    expect(guessOutputColumns({ columns: ["a", "b"], rows: 0, sample: [] })).toEqual({ idColumn: "", outputColumn: "" });
  });

  it("names what is missing before uploading", () => {
    const none = buildOutputsImport(EMPTY_OUTPUTS);
    expect(none.body).toBeNull();
    expect(Object.keys(none.errors.fields).sort()).toEqual(["field", "file", "name"]);
    const csv = buildOutputsImport({ ...EMPTY_OUTPUTS, file: new File(["id,output\n"], "out.csv"), name: "gpt", field: "types" });
    expect(csv.body).toBeNull();
    expect(Object.keys(csv.errors.fields).sort()).toEqual(["id_column", "output_column"]);
  });

  it("sends the columns for CSV only, and the model name when given", () => {
    const file = new File(["{}"], "out.jsonl");
    const json = buildOutputsImport({ ...EMPTY_OUTPUTS, file, name: " gpt ", field: "types", idColumn: "x", outputColumn: "y" });
    expect(json.body).toEqual({ file, name: "gpt", field: "types" });
    const table = new File(["post,answer\n"], "out.csv");
    const csv = buildOutputsImport({ file: table, name: "gpt", modelName: "gpt-4o", field: "fallacious", idColumn: "post", outputColumn: "answer" });
    expect(csv.body).toEqual({ file: table, name: "gpt", field: "fallacious", model_name: "gpt-4o", id_column: "post", output_column: "answer" });
    expect(csv.errors).toEqual({ fields: {}, general: [] });
  });

  it("sends whole records, an id prefix, and a second file with its own prefix", () => {
    const bench = new File(["[]"], "claude_bench.json");
    const benign = new File(["[]"], "claude_benign.json");
    const base = { ...EMPTY_OUTPUTS, file: bench, name: "claude", field: "types", wholeRecord: true };
    expect(buildOutputsImport({ ...base, idPrefix: " p" }).body).toEqual({ file: bench, name: "claude", field: "types", output_column: "*", id_prefix: "p" });
    const two = buildOutputsImport({ ...base, moreFile: benign, moreIdPrefix: "good-" }).body!;
    expect(two).toEqual({ file: [bench, benign], name: "claude", field: "types", output_column: "*", id_prefix: ["", "good-"] });
    const data = toFormData(two);
    expect(data.getAll("file").map((f) => (f as File).name)).toEqual(["claude_bench.json", "claude_benign.json"]);
    expect(data.getAll("id_prefix")).toEqual(["", "good-"]); // one prefix per file, the empty one kept
    const table = new File(["id,logic_error\n"], "out.csv");
    expect(buildOutputsImport({ ...base, file: table, idColumn: "id" }).body).toMatchObject({ id_column: "id", output_column: "*" });
  });
});
