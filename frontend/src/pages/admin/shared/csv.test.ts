import { describe, expect, it } from "vitest";
import { toFormData } from "../../../components/form/multipart";
import { guessIdColumn, guessTextColumn } from "./csv";

describe("csv columns", () => {
  it("picks a column named text, else the longest values", () => {
    expect(guessTextColumn({ columns: ["id", "Text"], rows: 1, sample: [["1", "a"]] })).toBe("Text");
    expect(guessTextColumn({ columns: ["id", "body2", "label"], rows: 2, sample: [["1", "a long sentence here", "x"], ["2", "another one", "y"]] })).toBe("body2");
  });

  it("picks an id column when there is one", () => {
    expect(guessIdColumn({ columns: ["doc_id", "text"], rows: 0, sample: [] })).toBe("doc_id");
    expect(guessIdColumn({ columns: ["name", "text"], rows: 0, sample: [] })).toBe("");
  });
});

describe("multipart body", () => {
  it("leaves out empty values and keeps the file name", () => {
    const file = new File(["{}"], "data.jsonl");
    const data = toFormData({ file, format: "csv", text_column: "text", id_column: "", seed: undefined, flag: false });
    expect([...data.keys()]).toEqual(["file", "format", "text_column", "flag"]);
    expect((data.get("file") as File).name).toBe("data.jsonl");
    expect(data.get("flag")).toBe("false");
  });
});
