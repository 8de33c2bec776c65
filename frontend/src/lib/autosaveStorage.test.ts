import { describe, expect, it } from "vitest";
import { documentStorageKey, readOps, storageKeyFor, writeOps } from "./autosaveStorage";
import type { Op } from "./spanOps";

class MemoryStore {
  data = new Map<string, string>();
  full = false;
  getItem(k: string) {
    return this.data.get(k) ?? null;
  }
  setItem(k: string, v: string) {
    if (this.full) throw new Error("QuotaExceededError");
    this.data.set(k, v);
  }
  removeItem(k: string) {
    this.data.delete(k);
  }
}

const ops: Op[] = [{ kind: "delete", key: "a" }];

describe("autosave storage", () => {
  it("keys a document's changes by document and user", () => {
    expect(documentStorageKey(3, 11)).toBe("fallacy.autosave.v1.doc.3.user.11");
    expect(storageKeyFor(7)).toBe("fallacy.autosave.v1.7");
  });

  it("writes, reads back and removes the waiting operations", () => {
    const store = new MemoryStore();
    writeOps(store, "k", ops);
    expect(readOps(store, "k")).toEqual(ops);
    writeOps(store, "k", []);
    expect(store.data.has("k")).toBe(false);
    expect(readOps(store, "k")).toBeNull();
  });

  it("reads nothing from unreadable or foreign entries, or without storage", () => {
    const store = new MemoryStore();
    store.data.set("broken", "{not json");
    store.data.set("other", JSON.stringify({ v: 2, ops }));
    store.data.set("shape", JSON.stringify({ v: 1, ops: "x" }));
    expect(readOps(store, "broken")).toBeNull();
    expect(readOps(store, "other")).toBeNull();
    expect(readOps(store, "shape")).toBeNull();
    expect(readOps(null, "k")).toBeNull();
  });

  it("survives a full storage", () => {
    const store = new MemoryStore();
    store.full = true;
    expect(() => writeOps(store, "k", ops)).not.toThrow();
    expect(readOps(store, "k")).toBeNull();
  });
});
