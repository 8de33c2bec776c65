import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { SaveQueue } from "./autosave";
import { documentStorageKey } from "./autosaveStorage";
import type { Http, HttpResult } from "./http";
import type { SaveStatus } from "./saveStatus";
import { applyOps } from "./spanOps";
import type { ServerSpan } from "../types";

class MemoryStore {
  data = new Map<string, string>();
  getItem(k: string) {
    return this.data.get(k) ?? null;
  }
  setItem(k: string, v: string) {
    this.data.set(k, v);
  }
  removeItem(k: string) {
    this.data.delete(k);
  }
}

/** A tiny stand-in for the REST API: spans with revisions, client_id idempotence. */
class FakeServer {
  spans = new Map<number, ServerSpan>();
  nextId = 1;
  log: string[] = [];
  down = false;
  failWith: number | null = null;
  loseResponse = false;

  http: Http = async (method, url, body) => {
    await Promise.resolve();
    if (this.down) throw new TypeError("Failed to fetch");
    this.log.push(`${method} ${url}`);
    if (this.failWith) return { status: this.failWith, data: { detail: "boom" } };
    const res = this.route(method, url, body as Record<string, unknown>);
    if (this.loseResponse) {
      this.loseResponse = false;
      throw new TypeError("connection reset");
    }
    return res;
  };

  private route(method: string, url: string, body: Record<string, unknown>): HttpResult {
    if (method === "POST") {
      if ((body.labels as string[]).length === 0) return { status: 400, data: { labels: ["This list may not be empty."] } };
      const existing = [...this.spans.values()].find((s) => s.client_id === body.client_id);
      if (existing) return { status: 200, data: structuredClone(existing) };
      const span: ServerSpan = {
        id: this.nextId++,
        client_id: body.client_id as string,
        start: body.start as number,
        end: body.end as number,
        labels: body.labels as string[],
        details: (body.details as ServerSpan["details"]) ?? {},
        revision: 1,
      };
      this.spans.set(span.id, span);
      return { status: 201, data: structuredClone(span) };
    }
    const m = /\/api\/spans\/(\d+)\/(\?revision=(\d+))?/.exec(url)!;
    const span = this.spans.get(Number(m[1]));
    if (!span) return { status: 404, data: { detail: "Not found." } };
    const revision = method === "DELETE" ? Number(m[3]) : (body.revision as number);
    if (revision !== span.revision) return { status: 409, data: { detail: "stale", current: structuredClone(span) } };
    if (method === "DELETE") {
      this.spans.delete(span.id);
      return { status: 204, data: null };
    }
    const { revision: _r, ...fields } = body;
    Object.assign(span, fields, { revision: span.revision + 1 });
    return { status: 200, data: structuredClone(span) };
  }
}

const fields = (labels = ["ad hominem"]) => ({ start: 0, end: 10, labels, details: {} });

/** Run what is due now (the queue's zero-delay send) without firing retry timers. */
async function settle() {
  await vi.advanceTimersByTimeAsync(0);
}

describe("autosave queue", () => {
  let server: FakeServer;
  let store: MemoryStore;
  let statuses: SaveStatus[];

  beforeEach(() => {
    vi.useFakeTimers();
    server = new FakeServer();
    store = new MemoryStore();
    statuses = [];
  });
  afterEach(() => vi.useRealTimers());

  const makeQueue = (extra: Partial<ConstructorParameters<typeof SaveQueue>[0]> = {}) =>
    new SaveQueue({
      annotationId: 7,
      http: server.http,
      store,
      onStatus: (s) => statuses.push(s),
      ...extra,
    });

  it("sends a create with the client id, then edits with the last revision", async () => {
    const q = makeQueue();
    q.enqueue({ kind: "create", key: "k1", fields: fields() });
    expect(q.status()).toEqual({ state: "saving", pending: 1 });
    expect(store.getItem("fallacy.autosave.v1.7")).toContain("k1"); // persisted before sending
    await vi.runAllTimersAsync();
    expect(server.log).toEqual(["POST /api/annotations/7/spans/"]);
    q.enqueue({ kind: "update", key: "k1", fields: { labels: ["strawman"] } });
    await vi.runAllTimersAsync();
    expect(server.log[1]).toBe("PATCH /api/spans/1/");
    expect(server.spans.get(1)!.labels).toEqual(["strawman"]);
    expect(server.spans.get(1)!.revision).toBe(2);
    expect(q.ref("k1")).toEqual({ id: 1, revision: 2 });
    expect(q.status()).toEqual({ state: "saved" });
    expect(store.getItem("fallacy.autosave.v1.7")).toBeNull();
  });

  it("coalesces edits that wait in the queue, and drops a create deleted before sending", async () => {
    const q = makeQueue();
    q.enqueue({ kind: "create", key: "a", fields: fields() }, 500);
    q.enqueue({ kind: "update", key: "a", fields: { labels: ["strawman"] } }, 500);
    q.enqueue({ kind: "update", key: "a", fields: { details: { strawman: { slots: { E: "x" }, explanation: "" } } } }, 500);
    expect(q.pending()).toBe(1);
    q.enqueue({ kind: "create", key: "b", fields: fields() }, 500);
    q.enqueue({ kind: "delete", key: "b" });
    expect(q.pendingOps().map((o) => o.key)).toEqual(["a"]);
    await vi.runAllTimersAsync();
    expect(server.log).toEqual(["POST /api/annotations/7/spans/"]);
    expect(server.spans.get(1)!.labels).toEqual(["strawman"]);
    expect(server.spans.get(1)!.details.strawman.slots.E).toBe("x");
  });

  it("keeps changes while offline, retries with backoff, and saves when back", async () => {
    const q = makeQueue();
    server.down = true;
    q.enqueue({ kind: "create", key: "k", fields: fields() });
    await settle();
    expect(q.status()).toEqual({ state: "offline", pending: 1 });
    q.enqueue({ kind: "update", key: "k", fields: { labels: ["false dilemma"] } });
    expect(q.pending()).toBe(1); // merged into the unsent create
    await vi.advanceTimersByTimeAsync(1000); // 1st retry (1 s), still down
    await vi.advanceTimersByTimeAsync(2000); // 2nd retry (2 s)
    expect(q.status().state).toBe("offline");
    server.down = false;
    await vi.advanceTimersByTimeAsync(4000);
    expect(q.status()).toEqual({ state: "saved" });
    expect(server.spans.get(1)!.labels).toEqual(["false dilemma"]);
    expect(statuses.map((s) => s.state)).toContain("offline");
  });

  it("survives a reload: a new queue picks up the stored operations", async () => {
    server.down = true;
    const q1 = makeQueue();
    q1.enqueue({ kind: "create", key: "k", fields: fields(["strawman", "no fallacy"]) });
    await settle();
    q1.stop();
    server.down = false;
    const q2 = makeQueue();
    expect(q2.pendingOps()).toHaveLength(1);
    const shown = applyOps([], q2.pendingOps(), (key, f) => ({ key, ...f }));
    expect(shown[0].labels).toEqual(["strawman", "no fallacy"]);
    q2.retryNow();
    await vi.runAllTimersAsync();
    expect([...server.spans.values()][0].labels).toEqual(["strawman", "no fallacy"]);
  });

  it("makes a retried create idempotent and reconciles edits merged into it", async () => {
    const q = makeQueue();
    server.loseResponse = true; // the server stores it, the answer never arrives
    q.enqueue({ kind: "create", key: "k", fields: fields() });
    await settle();
    expect(q.status().state).toBe("offline");
    // Edits made while it was in flight queue behind it; after a reload they may be merged.
    q.stop();
    const q2 = makeQueue();
    q2.enqueue({ kind: "update", key: "k", fields: { labels: ["strawman"] } });
    expect(q2.pending()).toBe(1); // merged into the create
    await vi.runAllTimersAsync();
    expect(server.spans.size).toBe(1);
    expect(server.spans.get(1)!.labels).toEqual(["strawman"]);
    expect(server.log).toEqual([
      "POST /api/annotations/7/spans/",
      "POST /api/annotations/7/spans/",
      "PATCH /api/spans/1/",
    ]);
  });

  it("on 409 takes the server's revision and re-applies the change", async () => {
    const conflicts: string[] = [];
    const q = makeQueue({ onConflict: (key) => conflicts.push(key) });
    q.enqueue({ kind: "create", key: "k", fields: fields() });
    await vi.runAllTimersAsync();
    server.spans.get(1)!.revision = 5; // changed in another window
    server.spans.get(1)!.details = { "ad hominem": { slots: {}, explanation: "other tab" } };
    q.enqueue({ kind: "update", key: "k", fields: { labels: ["strawman"] } });
    await vi.runAllTimersAsync();
    expect(conflicts).toEqual(["k"]);
    expect(server.spans.get(1)!.labels).toEqual(["strawman"]);
    expect(server.spans.get(1)!.details["ad hominem"].explanation).toBe("other tab");
    expect(server.spans.get(1)!.revision).toBe(6);
    q.enqueue({ kind: "delete", key: "k" });
    server.spans.get(1)!.revision = 9;
    await vi.runAllTimersAsync();
    expect(server.spans.size).toBe(0);
    expect(q.status()).toEqual({ state: "saved" });
  });

  it("a change whose answer was lost (server restarted) is saved, not reported as a conflict", async () => {
    const conflicts: string[] = [];
    const q = makeQueue({ onConflict: (key) => conflicts.push(key) });
    q.enqueue({ kind: "create", key: "k", fields: fields() });
    await vi.runAllTimersAsync();
    server.loseResponse = true; // applied on the server, the answer never arrives
    q.enqueue({ kind: "update", key: "k", fields: { labels: ["strawman"] } });
    await settle();
    expect(q.status().state).toBe("offline");
    await vi.runAllTimersAsync();
    expect(server.log.filter((l) => l.startsWith("PATCH"))).toHaveLength(2); // the retry: a 409
    expect(conflicts).toEqual([]);
    expect(server.spans.get(1)!.revision).toBe(2); // applied once
    expect(q.ref("k")).toEqual({ id: 1, revision: 2 });
    expect(q.status()).toEqual({ state: "saved" });
    // A real conflict after a lost answer is still one: another window changed the labels.
    server.loseResponse = true;
    q.enqueue({ kind: "update", key: "k", fields: { labels: ["false dilemma"] } });
    await settle();
    server.spans.get(1)!.labels = ["ad hominem"];
    server.spans.get(1)!.revision = 7;
    await vi.runAllTimersAsync();
    expect(conflicts).toEqual(["k"]);
    expect(server.spans.get(1)!.labels).toEqual(["false dilemma"]);
    expect(q.status()).toEqual({ state: "saved" });
  });

  it("reports a span deleted elsewhere (404) and a refused change (400)", async () => {
    const gone: string[] = [];
    const rejected: string[] = [];
    const q = makeQueue({ onGone: (k) => gone.push(k), onRejected: (k, _op, msg) => rejected.push(`${k}: ${msg}`) });
    q.enqueue({ kind: "create", key: "k", fields: fields() });
    await vi.runAllTimersAsync();
    server.spans.clear();
    q.enqueue({ kind: "update", key: "k", fields: { labels: ["strawman"] } });
    await vi.runAllTimersAsync();
    expect(gone).toEqual(["k"]);
    q.enqueue({ kind: "create", key: "bad", fields: fields([]) });
    q.enqueue({ kind: "update", key: "bad", fields: { start: 3 } }, 0);
    await vi.runAllTimersAsync();
    expect(rejected).toEqual(["bad: labels: This list may not be empty."]);
    expect(q.status()).toEqual({ state: "error", pending: 0, message: "Not saved: labels: This list may not be empty." });
    expect(server.log.filter((l) => l.startsWith("PATCH"))).toHaveLength(1); // the orphan edit was skipped
  });

  it("backs off on server errors and stops (keeping changes) when signed out", async () => {
    const q = makeQueue();
    server.failWith = 503;
    q.enqueue({ kind: "create", key: "k", fields: fields() });
    await settle();
    expect(q.status()).toMatchObject({ state: "retrying", pending: 1 });
    server.failWith = 403;
    await vi.advanceTimersByTimeAsync(1000);
    expect(q.status()).toMatchObject({ state: "error", pending: 1 });
    await vi.advanceTimersByTimeAsync(60000);
    expect(server.log).toHaveLength(2); // no retries while signed out
    server.failWith = null;
    const done = q.flush();
    await vi.runAllTimersAsync();
    expect(await done).toBe(true);
    expect(server.spans.size).toBe(1);
  });

  describe("before the annotation exists", () => {
    const docKey = documentStorageKey(3, 11);
    let ensured: number;
    let ensureError: unknown;

    beforeEach(() => {
      ensured = 0;
      ensureError = null;
    });

    const ensureAnnotation = async () => {
      await Promise.resolve();
      ensured++;
      if (ensureError) throw ensureError;
      return 7;
    };
    const lazyQueue = (extra: Partial<ConstructorParameters<typeof SaveQueue>[0]> = {}) =>
      makeQueue({ annotationId: null, ensureAnnotation, storageKey: docKey, ...extra });

    it("creates nothing until the first change, then creates the annotation once and saves", async () => {
      const created: number[] = [];
      const q = lazyQueue({ onAnnotation: (id) => created.push(id) });
      await vi.runAllTimersAsync();
      expect(ensured).toBe(0); // opening the document: no request at all
      expect(server.log).toEqual([]);
      expect(q.status()).toEqual({ state: "saved" });
      q.enqueue({ kind: "create", key: "k1", fields: fields() });
      q.enqueue({ kind: "create", key: "k2", fields: fields(["strawman"]) });
      expect(store.getItem(docKey)).toContain("k1"); // kept before anything is sent
      await vi.runAllTimersAsync();
      expect(ensured).toBe(1);
      expect(created).toEqual([7]);
      expect(q.annotationId).toBe(7);
      expect(server.log).toEqual(["POST /api/annotations/7/spans/", "POST /api/annotations/7/spans/"]);
      expect(q.status()).toEqual({ state: "saved" });
      expect(store.getItem(docKey)).toBeNull();
    });

    it("keeps the changes while the annotation cannot be created (offline), then saves them", async () => {
      ensureError = new TypeError("Failed to fetch");
      const q = lazyQueue();
      q.enqueue({ kind: "create", key: "k", fields: fields() });
      await settle();
      expect(q.status()).toEqual({ state: "offline", pending: 1 });
      expect(server.log).toEqual([]);
      ensureError = null;
      await vi.advanceTimersByTimeAsync(1000);
      expect(q.status()).toEqual({ state: "saved" });
      expect(server.spans.size).toBe(1);
    });

    it("stops with the server's message when the annotation is refused, keeping the changes", async () => {
      ensureError = Object.assign(new Error("document 3 is not assigned to you"), { status: 403 });
      const q = lazyQueue();
      q.enqueue({ kind: "create", key: "k", fields: fields() });
      await vi.runAllTimersAsync();
      expect(q.status()).toEqual({ state: "error", pending: 1, message: "Not saved: document 3 is not assigned to you" });
      expect(server.log).toEqual([]);
      expect(store.getItem(docKey)).toContain('"k"');
    });

    it("survives a reload before the annotation exists (per-document key)", async () => {
      ensureError = new TypeError("Failed to fetch");
      const q1 = lazyQueue();
      q1.enqueue({ kind: "create", key: "k", fields: fields() });
      await settle();
      q1.stop();
      ensureError = null;
      const q2 = lazyQueue();
      expect(q2.pendingOps().map((o) => o.key)).toEqual(["k"]);
      q2.retryNow();
      await vi.runAllTimersAsync();
      expect(server.spans.size).toBe(1);
    });

    it("moves changes kept under the old per-annotation key", () => {
      store.setItem("fallacy.autosave.v1.7", JSON.stringify({ v: 1, ops: [{ kind: "create", key: "old", fields: fields() }] }));
      const q = makeQueue({ annotationId: 7, storageKey: docKey });
      expect(q.pendingOps().map((o) => o.key)).toEqual(["old"]);
      expect(store.getItem("fallacy.autosave.v1.7")).toBeNull();
      expect(store.getItem(docKey)).toContain("old");
    });

    it("annotation() creates it once for concurrent callers (submit without changes)", async () => {
      const q = lazyQueue();
      const [a, b] = await Promise.all([q.annotation(), q.annotation()]);
      expect([a, b]).toEqual([7, 7]);
      expect(ensured).toBe(1);
      expect(await q.annotation()).toBe(7);
      expect(ensured).toBe(1);
    });
  });
});
