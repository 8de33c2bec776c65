import { describe, expect, it } from "vitest";
import { EMPTY_OUTPUTS, buildOutputsImport, skippedOf, skippedText } from "./runOutputs";

const benign = new File(['[{"id": 1, "logic_error": "no"}]'], "model_benign.json");

describe("skipping records whose id matches no item", () => {
  it("sends skip_unmatched only when asked", () => {
    const base = { ...EMPTY_OUTPUTS, file: benign, name: "m", field: "types", wholeRecord: true, idPrefix: "good-" };
    expect(buildOutputsImport(base).body).not.toHaveProperty("skip_unmatched");
    expect(buildOutputsImport({ ...base, skipUnmatched: true }).body).toMatchObject({ skip_unmatched: "true", id_prefix: "good-", output_column: "*" });
  });

  it("says how many records were skipped and which, from the run's config", () => {
    const config = {
      outputs: 502,
      skipped: {
        count: 2,
        first: [
          { file: "model_benign.json", line: 3013, id: "good-503" },
          { file: "model_benign.json", line: 3019, id: "good-504" },
        ],
      },
    };
    expect(skippedText(skippedOf(config))).toBe("Skipped 2 records whose id matches no item: good-503 (model_benign.json line 3013), good-504 (model_benign.json line 3019).");
    const many = { skipped: { count: 7, first: config.skipped.first } };
    expect(skippedText(skippedOf(many))).toMatch(/^Skipped 7 records .*line 3019\), …\.$/);
    expect(skippedText(skippedOf({ skipped: { count: 0, first: [] } }))).toBe("No record was skipped: every id matches an item.");
    expect(skippedOf({ outputs: 3 })).toBeNull();
    expect(skippedOf(null)).toBeNull();
    expect(skippedText(null)).toBe("");
  });
});
