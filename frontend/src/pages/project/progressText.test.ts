import { describe, expect, it } from "vitest";
import { cardProgressText, queueText } from "./progressText";

describe("progress in words", () => {
  it("an annotator's queue: nothing assigned, work left, all submitted", () => {
    expect(queueText({ done: 0, total: 0 })).toBe("No document is assigned to you in this project yet.");
    expect(queueText({ done: 0, total: 14 })).toBe("0 of your 14 documents submitted · 14 left");
    expect(queueText({ done: 14, total: 14 })).toBe("All 14 of your documents are submitted. Thank you!");
  });

  it("project cards: staff see the project, annotators their own documents", () => {
    expect(cardProgressText("admin", { done: 3, total: 20 })).toBe("3 of 20 documents done");
    expect(cardProgressText("reviewer", { done: 0, total: 0 })).toBe("No documents yet");
    expect(cardProgressText("annotator", { done: 0, total: 200 })).toBe("0 of your 200 documents done");
    expect(cardProgressText("annotator", { done: 0, total: 0 })).toBe("No documents assigned to you yet");
    expect(cardProgressText("annotator", { done: 5, total: 5 })).toBe("All 5 of your documents are submitted");
  });
});
