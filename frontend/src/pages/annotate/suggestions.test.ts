import { describe, expect, it } from "vitest";
import type { ServerSpan } from "../../types";
import type { LocalSpan } from "./spans";
import {
  applyDecisions,
  decidedText,
  decisionMessage,
  focusedSuggestion,
  labelText,
  mergeServerSpan,
  modelText,
  nextPending,
  orderSuggestions,
  pendingAt,
  pendingSentences,
  type Suggestion,
  visibleSuggestions,
} from "./suggestions";

const run1 = { id: 1, name: "run-one", model_label: "model-1" };
const run2 = { id: 2, name: "another", model_label: "model-2" };
const sugg = (id: number, unit: number, over: Partial<Suggestion> = {}): Suggestion => ({
  id,
  run: run1,
  unit_index: unit,
  start: unit * 10,
  end: unit * 10 + 9,
  labels: ["ad hominem"],
  decision: null,
  span: null,
  ...over,
});

describe("which suggestions the page shows, in which order", () => {
  it("an unassisted project (or no answer) shows none", () => {
    expect(visibleSuggestions(null)).toEqual([]);
    expect(visibleSuggestions({ assisted: false, suggestions: [sugg(1, 0)] })).toEqual([]);
  });

  it("by sentence, then run name, then id", () => {
    const list = [sugg(5, 2), sugg(3, 0), sugg(4, 0, { run: run2 }), sugg(2, 0)];
    expect(visibleSuggestions({ assisted: true, suggestions: list }).map((s) => s.id)).toEqual([4, 2, 3, 5]);
    expect(orderSuggestions(list).map((s) => s.id)).toEqual([4, 2, 3, 5]);
    expect(list.map((s) => s.id)).toEqual([5, 3, 4, 2]); // not sorted in place
  });

  it("names the run and its model", () => {
    expect(modelText(run1)).toBe("run-one · model-1");
    expect(modelText({ id: 3, name: "gpt", model_label: "gpt" })).toBe("gpt");
    expect(modelText({ id: 3, name: "imported", model_label: "" })).toBe("imported");
  });

  it("shows labels in taxonomy order", () => {
    expect(labelText(sugg(1, 0, { labels: ["b", "a"] }), ["b", "a"])).toBe("b | a");
  });
});

describe("what is still to decide", () => {
  const list = [sugg(1, 0, { decision: "accept", span: 9 }), sugg(2, 0), sugg(3, 1, { decision: "reject" }), sugg(4, 2), sugg(5, 2)];

  it("pending ones per sentence and the sentences marked", () => {
    expect(pendingAt(list, 0).map((s) => s.id)).toEqual([2]);
    expect(pendingAt(list, 1)).toEqual([]);
    expect([...pendingSentences(list)].sort()).toEqual([0, 2]);
    expect(decidedText(list)).toBe("1 accepted, 1 rejected");
    expect(decidedText([sugg(1, 0)])).toBe("");
  });

  it("the focused suggestion: the chosen one if still pending here, else the first here", () => {
    expect(focusedSuggestion(list, null, 4)).toBeNull();
    expect(focusedSuggestion(list, 1, null)).toBeNull(); // only a decided one there
    expect(focusedSuggestion(list, 2, null)?.id).toBe(4);
    expect(focusedSuggestion(list, 2, 5)?.id).toBe(5);
    expect(focusedSuggestion(list, 0, 5)?.id).toBe(2); // chosen one is elsewhere
    expect(focusedSuggestion(list, 0, 1)?.id).toBe(2); // chosen one is decided
  });

  it("the next pending one wraps round and skips decided ones", () => {
    expect(nextPending(list, null, null)?.id).toBe(2);
    expect(nextPending(list, list[1], 0)?.id).toBe(4);
    expect(nextPending(list, list[4], 2)?.id).toBe(2);
    expect(nextPending(list, null, 1)?.id).toBe(4); // from a sentence without one
    expect(nextPending(list, null, 3)?.id).toBe(2); // past the last: wraps
    expect(nextPending([sugg(1, 0, { decision: "reject" })], null, null)).toBeNull();
  });

  it("decisions from the server replace the pending state (unknown ids ignored)", () => {
    const now = "2026-01-01T00:00:00Z";
    const next = applyDecisions(list, [
      { suggestion: 2, annotator: 7, decision: "accept", decided_at: now, span: 11 },
      { suggestion: 99, annotator: 7, decision: "reject", decided_at: now, span: null },
    ]);
    expect(next.find((s) => s.id === 2)).toMatchObject({ decision: "accept", span: 11 });
    expect(next.filter((s) => s.decision === null).map((s) => s.id)).toEqual([4, 5]);
    expect(list[1].decision).toBeNull(); // the input is left alone
    expect(applyDecisions(list, [])).toEqual(list);
  });
});

describe("an accepted suggestion's span joins the page's spans", () => {
  const local = (key: string, start: number, end: number): LocalSpan => ({ key, start, end, labels: ["x"], details: {} });
  const server: ServerSpan = {
    id: 42,
    client_id: "6a0c5a3e-0000-5000-8000-000000000001",
    start: 10,
    end: 19,
    labels: ["b", "a"],
    details: {},
    revision: 1,
  };

  it("is added once, keyed by its client id, in text order, labels in taxonomy order", () => {
    const spans = [local("k1", 0, 9), local("k2", 20, 29)];
    const first = mergeServerSpan(spans, server, ["b", "a"]);
    expect(first.added).toBe(true);
    expect(first.key).toBe(server.client_id);
    expect(first.spans.map((s) => s.key)).toEqual(["k1", server.client_id, "k2"]);
    expect(first.spans[1]).toEqual({ key: server.client_id, start: 10, end: 19, labels: ["b", "a"], details: {} });
    expect(spans).toHaveLength(2); // the input is left alone

    const again = mergeServerSpan(first.spans, { ...server, revision: 2 }, ["b", "a"]);
    expect(again.added).toBe(false);
    expect(again.spans).toEqual(first.spans);
  });

  it("a span without a client id is keyed by its id, as loaded spans are", () => {
    const merged = mergeServerSpan([], { ...server, client_id: null }, []);
    expect(merged.key).toBe("srv-42");
    expect(mergeServerSpan(merged.spans, { ...server, client_id: null }, []).added).toBe(false);
  });
});

describe("what the page says after a decision", () => {
  const decision = (over: Partial<{ decision: "accept" | "reject" }> = {}) => ({ suggestion: 1, annotator: 2, decision: "accept" as const, decided_at: "", span: 5, ...over });

  it("names the labels and the model of a single decision", () => {
    const s = sugg(1, 2, { labels: ["b", "a"] });
    expect(decisionMessage(s, "reject", [decision({ decision: "reject" })], ["a", "b"])).toBe(`Rejected: a | b (${modelText(run1)}).`);
    expect(decisionMessage(s, "accept", [decision()], ["a", "b"])).toBe("Accepted: a | b, now your span (E opens it).");
  });

  it("counts the accepts of a whole sentence", () => {
    const s = sugg(1, 2);
    expect(decisionMessage(s, "sentence", [decision(), decision(), decision({ decision: "reject" })], [])).toBe("Accepted 2 suggestions on sentence 3.");
    expect(decisionMessage(s, "sentence", [decision()], [])).toBe("Accepted 1 suggestion on sentence 3.");
  });
});
