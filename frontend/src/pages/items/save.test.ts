import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import type { Http } from "../../lib/http";
import type { ItemResponse } from "../../types";
import { ResponseSaver } from "./save";

/** The response endpoint: a revision, merging PATCH, 409 on a stale revision. */
class FakeServer {
  revision: number | null = null;
  response: ItemResponse = {};
  bodies: unknown[] = [];
  down = false;
  failWith: number | null = null;

  http: Http = async (_method, _url, body) => {
    await Promise.resolve();
    if (this.down) throw new TypeError("Failed to fetch");
    this.bodies.push(structuredClone(body));
    if (this.failWith) return { status: this.failWith, data: { detail: "boom" } };
    const { revision, response } = body as { revision: number | null; response: Record<string, unknown> };
    if (revision !== this.revision) return { status: 409, data: { detail: "stale", current: this.state() } };
    if (response.quality === 9) return { status: 400, data: { "response.quality": ["must be from 1 to 5, not 9"] } };
    for (const [k, v] of Object.entries(response)) {
      if (v === null) delete this.response[k];
      else this.response[k] = v as ItemResponse[string];
    }
    this.revision = (this.revision ?? 1) + 1;
    return { status: 200, data: this.state() };
  };

  state() {
    return { annotation: { revision: this.revision, response: structuredClone(this.response) } } as never;
  }
}

describe("ResponseSaver", () => {
  beforeEach(() => vi.useFakeTimers());
  afterEach(() => vi.useRealTimers());

  it("coalesces changes and saves them with the revision it saw", async () => {
    const server = new FakeServer();
    const saver = new ResponseSaver({ docId: 1, revision: null, http: server.http });
    saver.change("why", "a", 500);
    saver.change("why", "ab", 500);
    saver.change("answer", "B", 500);
    expect(saver.status().state).toBe("saving");
    await vi.advanceTimersByTimeAsync(600);
    expect(server.bodies).toEqual([{ revision: null, response: { why: "ab", answer: "B" } }]);
    saver.change("answer", null);
    await vi.advanceTimersByTimeAsync(10);
    expect(server.bodies[1]).toEqual({ revision: 2, response: { answer: null } });
    expect(server.response).toEqual({ why: "ab" });
    expect(saver.status()).toEqual({ state: "saved" });
  });

  it("stops on a conflict and hands over the current state and the unsaved changes", async () => {
    const server = new FakeServer();
    server.revision = 5;
    server.response = { answer: "C" };
    const onConflict = vi.fn();
    const saver = new ResponseSaver({ docId: 1, revision: 3, http: server.http, onConflict });
    saver.change("answer", "A");
    await vi.advanceTimersByTimeAsync(10);
    expect(onConflict).toHaveBeenCalledTimes(1);
    expect(onConflict.mock.calls[0][0].annotation.revision).toBe(5);
    expect(onConflict.mock.calls[0][1]).toEqual({ answer: "A" });
    expect(saver.status()).toMatchObject({ state: "error", message: expect.stringContaining("current version") });
    saver.change("why", "x");
    await vi.advanceTimersByTimeAsync(10);
    expect(server.bodies.length).toBe(1); // nothing sent while in conflict
    saver.reset(5);
    saver.change("answer", "A");
    await vi.advanceTimersByTimeAsync(10);
    expect(server.response).toEqual({ answer: "A" });
    expect(saver.status()).toEqual({ state: "saved" });
  });

  it("retries after a network failure and says why a change was refused", async () => {
    const server = new FakeServer();
    server.down = true;
    const onRejected = vi.fn();
    const saver = new ResponseSaver({ docId: 1, revision: null, http: server.http, baseDelayMs: 100, onRejected });
    saver.change("answer", "A");
    await vi.advanceTimersByTimeAsync(10);
    expect(saver.status()).toEqual({ state: "offline", pending: 1 });
    server.down = false;
    await vi.advanceTimersByTimeAsync(150);
    expect(server.response).toEqual({ answer: "A" });
    saver.change("quality", 9);
    await vi.advanceTimersByTimeAsync(10);
    expect(onRejected).toHaveBeenCalledWith({ quality: 9 }, { "response.quality": ["must be from 1 to 5, not 9"] });
    expect(saver.status()).toMatchObject({ state: "error", message: expect.stringContaining("response.quality") });
    expect(await saver.flush()).toBe(true);
  });
});
