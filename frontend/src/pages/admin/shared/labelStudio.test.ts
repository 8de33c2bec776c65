import { describe, expect, it } from "vitest";
import { annotatorLines, buildAnnotatorChoices, defaultText, initialChoices, type LsPreview } from "./labelStudio";

const preview: LsPreview = {
  tasks: 2,
  predictions: 1,
  members: ["alice", "boss"],
  annotators: [
    { key: "1", source_id: "1", email: "ann@example.org", shown: "ann@example.org (Label Studio user 1)", annotations: 2, regions: 3, default: { how: "new", user: null } },
    { key: "2", source_id: "2", email: "", shown: "Label Studio user 2", annotations: 1, regions: 1, default: { how: "remembered", user: "alice" } },
  ],
};

describe("Label Studio annotator choices", () => {
  it("starts every annotator on the default, an invitation pre-filled with the file's e-mail", () => {
    expect(initialChoices(preview)).toEqual({ "1": { action: "auto", user: "", email: "ann@example.org" }, "2": { action: "auto", user: "", email: "" } });
  });

  it("says what the default does", () => {
    expect(defaultText(preview.annotators[0])).toBe("a new placeholder account (cannot sign in)");
    expect(defaultText(preview.annotators[1])).toBe("alice (as in earlier imports)");
    expect(defaultText({ ...preview.annotators[1], default: { how: "member", user: "bob" } })).toBe("bob (the member with this e-mail)");
  });

  it("sends only the choices that are not the default", () => {
    expect(buildAnnotatorChoices(initialChoices(preview)).json).toBeUndefined();
    const built = buildAnnotatorChoices({
      "1": { action: "invite", user: "", email: " ann@example.org " },
      "2": { action: "member", user: "alice", email: "" },
      "3": { action: "drop", user: "", email: "" },
    });
    expect(JSON.parse(built.json!)).toEqual({ "1": { action: "invite", email: "ann@example.org" }, "2": { action: "member", user: "alice" }, "3": { action: "drop" } });
  });

  it("names the annotator whose choice is incomplete", () => {
    const built = buildAnnotatorChoices({ "1": { action: "invite", user: "", email: "nope" }, "2": { action: "member", user: "", email: "" } });
    expect(built.json).toBeUndefined();
    expect(built.errors.fields).toEqual({ "annotators.1": ["Give the e-mail address to invite."], "annotators.2": ["Choose the member."] });
  });

  it("lists what was stored per annotator", () => {
    const report = {
      per_annotator: [
        { source: "Label Studio user 1", key: "1", user: "ann", annotations: 2, spans: 3 },
        { source: "Label Studio user 2", key: "2", user: null, annotations: 0, spans: 0 },
      ],
    };
    expect(annotatorLines(report)).toEqual(["Label Studio user 1: 2 annotations, 3 spans → ann", "Label Studio user 2: 0 annotations, 0 spans → dropped"]);
    expect(annotatorLines({})).toEqual([]);
  });
});
