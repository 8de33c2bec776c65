import { describe, expect, it } from "vitest";
import type { ServerSpan } from "../types";
import { applyOps, coalesce, fieldsApplied, newKey, type Op, sameFields } from "./spanOps";

const fields = (labels = ["ad hominem"]) => ({ start: 0, end: 10, labels, details: {} });
const span = (over: Partial<ServerSpan> = {}): ServerSpan => ({ id: 1, client_id: "a", revision: 1, ...fields(), ...over });

describe("coalescing waiting operations", () => {
  it("merges an update into the span's waiting create or update", () => {
    const created = coalesce([{ kind: "create", key: "a", fields: fields() }], { kind: "update", key: "a", fields: { end: 12 } }, 0);
    expect(created).toEqual([{ kind: "create", key: "a", fields: { ...fields(), end: 12 } }]);
    const updated = coalesce([{ kind: "update", key: "a", fields: { start: 2 } }], { kind: "update", key: "a", fields: { end: 12 } }, 0);
    expect(updated).toEqual([{ kind: "update", key: "a", fields: { start: 2, end: 12 } }]);
  });

  it("leaves the operation being sent alone", () => {
    const ops: Op[] = [{ kind: "update", key: "a", fields: { start: 2 } }];
    const next = coalesce(ops, { kind: "update", key: "a", fields: { end: 12 } }, 1);
    expect(next).toEqual([...ops, { kind: "update", key: "a", fields: { end: 12 } }]);
    expect(ops).toHaveLength(1); // the input is not changed
  });

  it("does not merge an update across a delete or into another span", () => {
    const ops: Op[] = [
      { kind: "update", key: "a", fields: { start: 2 } },
      { kind: "delete", key: "a" },
    ];
    expect(coalesce(ops, { kind: "update", key: "a", fields: { end: 3 } }, 0)).toHaveLength(3);
    expect(coalesce([{ kind: "create", key: "b", fields: fields() }], { kind: "update", key: "a", fields: { end: 3 } }, 0)).toHaveLength(2);
  });

  it("drops a span created and deleted while queued", () => {
    const ops: Op[] = [
      { kind: "create", key: "a", fields: fields() },
      { kind: "update", key: "a", fields: { end: 3 } },
      { kind: "create", key: "b", fields: fields() },
    ];
    expect(coalesce(ops, { kind: "delete", key: "a" }, 0)).toEqual([ops[2]]);
  });

  it("keeps a delete of a span whose create is being sent or was saved", () => {
    const ops: Op[] = [
      { kind: "create", key: "a", fields: fields() },
      { kind: "update", key: "a", fields: { end: 3 } },
    ];
    expect(coalesce(ops, { kind: "delete", key: "a" }, 1)).toEqual([ops[0], { kind: "delete", key: "a" }]);
    expect(coalesce([], { kind: "delete", key: "a" }, 0)).toEqual([{ kind: "delete", key: "a" }]);
  });
});

describe("comparing with the server's span", () => {
  it("ignores label order and empty slots", () => {
    const mine = { ...fields(["b", "a"]), details: { a: { slots: { x: "1", y: "" }, explanation: "" } } };
    const theirs = span({ labels: ["a", "b"], details: { a: { slots: { x: "1" }, explanation: "" } } });
    expect(sameFields(mine, theirs)).toBe(true);
    expect(sameFields({ ...mine, end: 11 }, theirs)).toBe(false);
  });

  it("checks only the fields a change holds", () => {
    expect(fieldsApplied({ end: 10 }, span())).toBe(true);
    expect(fieldsApplied({ end: 11 }, span())).toBe(false);
    expect(fieldsApplied({ labels: ["ad hominem"] }, span({ start: 5 }))).toBe(true);
    expect(fieldsApplied({ labels: ["strawman"] }, span())).toBe(false);
  });
});

describe("replaying operations", () => {
  it("creates, updates and deletes spans by key", () => {
    const spans = [
      { key: "a", ...fields() },
      { key: "b", ...fields() },
    ];
    const ops: Op[] = [
      { kind: "update", key: "a", fields: { end: 4 } },
      { kind: "delete", key: "b" },
      { kind: "create", key: "c", fields: fields(["strawman"]) },
      { kind: "update", key: "gone", fields: { end: 1 } },
    ];
    const shown = applyOps(spans, ops, (key, f) => ({ key, ...f }));
    expect(shown.map((s) => [s.key, s.end, s.labels[0]])).toEqual([
      ["a", 4, "ad hominem"],
      ["c", 10, "strawman"],
    ]);
  });

  it("makes distinct v4 client ids", () => {
    const keys = new Set(Array.from({ length: 20 }, newKey));
    expect(keys.size).toBe(20);
    for (const k of keys) expect(k).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
  });
});
