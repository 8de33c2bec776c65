import { describe, expect, it } from "vitest";
import { decisionText, disagreementText, nextInQueue, saveLabel } from "./queue";
import type { QueueRow } from "../../../types";

const row = (id: number, adjudicated = false): QueueRow => ({ document: { id, name: `d${id}`, position: id, length: 10 }, annotators: 2, sort_key: null, adjudicated });

describe("next document in the queue", () => {
  it("is the first undecided row other than the current one, whatever the current one's place", () => {
    // the server lists undecided documents first, decided ones last
    const rows = [row(3), row(1), row(2, true), row(4, true)];
    expect(nextInQueue(rows, 3)).toBe(1);
    expect(nextInQueue(rows, 1)).toBe(3);
    expect(nextInQueue(rows, 2)).toBe(3); // just decided: it went to the end
    expect(nextInQueue(rows, 99)).toBe(3);
    expect(nextInQueue([row(1), row(2, true)], 1)).toBeNull(); // nothing else to decide
  });
  it("marks decided rows", () => {
    expect(decisionText(row(1))).toBe("to decide");
    expect(decisionText(row(1, true))).toBe("decided");
  });
});

describe("disagreement shown in the queue", () => {
  it("reads as a share of sentences, none for full agreement, a dash when not compared", () => {
    expect(disagreementText(0.75)).toBe("75%");
    expect(disagreementText(2 / 3)).toBe("67%");
    expect(disagreementText(0)).toBe("none (0%)");
    expect(disagreementText(null)).toBe("—");
  });
});

describe("the adjudication save button", () => {
  it("reads Saved only when the draft holds what is shown", () => {
    expect(saveLabel({ saving: false, dirty: false, stored: false })).toBe("Save"); // no draft yet
    expect(saveLabel({ saving: false, dirty: false, stored: true })).toBe("Saved");
    expect(saveLabel({ saving: false, dirty: true, stored: true })).toBe("Save");
    expect(saveLabel({ saving: true, dirty: true, stored: true })).toBe("Saving…");
  });
});
