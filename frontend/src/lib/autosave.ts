// The autosave queue: every change to a span becomes an operation, kept in order, coalesced
// while it waits, written to persistent storage before anything is sent, and sent one at a
// time with retries. Nothing here touches the DOM; the HTTP function, the storage and the
// clock are injected, so it runs the same under Vitest.
//
// The annotation itself may not exist yet: opening a document creates nothing, and the
// queue calls `ensureAnnotation` (POST my-annotation) just before the first write is sent.
// Until then the changes wait under a per-document storage key.

import type { ServerSpan } from "../types";
import { type KeyValueStore, readOps, storageKeyFor, writeOps } from "./autosaveStorage";
import { errorMessage, type Http, type HttpResult, isOk, statusOf } from "./http";
import { backoffDelay, type SaveStatus, saveStatus, StatusReporter } from "./saveStatus";
import { coalesce, fieldsApplied, type Op, sameFields } from "./spanOps";

export interface ServerRef {
  id: number;
  revision: number;
}

export interface QueueOptions {
  /** The annotation the spans belong to; null/absent: `ensureAnnotation` creates it lazily. */
  annotationId?: number | null;
  /** Creates (or gets) the annotation; called once, before the first operation is sent. */
  ensureAnnotation?: () => Promise<number>;
  /** The annotation exists now (after `ensureAnnotation`). */
  onAnnotation?(id: number): void;
  http: Http;
  store?: KeyValueStore | null;
  storageKey?: string;
  refs?: Iterable<[string, ServerRef]>;
  baseDelayMs?: number;
  maxDelayMs?: number;
  maxConflictRetries?: number;
  isOnline?: () => boolean;
  /** Server copy after a successful write (ids and revisions; fields may lag local edits). */
  onSaved?(key: string, span: ServerSpan | null): void;
  /** 409: someone else changed the span; the pending change is re-applied on `current`. */
  onConflict?(key: string, current: ServerSpan, op: Op): void;
  /** 404 on update: the span no longer exists on the server; the change is dropped. */
  onGone?(key: string, op: Op): void;
  /** 400: the server refused the change; it is dropped. */
  onRejected?(key: string, op: Op, message: string): void;
  onStatus?(status: SaveStatus): void;
}

export class SaveQueue {
  annotationId: number | null;
  private ensuring: Promise<number> | null = null;
  private ops: Op[] = [];
  private refs = new Map<string, ServerRef>();
  private opts: QueueOptions;
  private running = false;
  private headInFlight = false;
  private timer: ReturnType<typeof setTimeout> | null = null;
  private timerAt = 0;
  private backingOff = false;
  private attempts = 0;
  private conflicts = 0;
  private offline = false;
  private retryMessage: string | null = null;
  /** Sending is stopped until retryNow (signed out, or the annotation cannot be created). */
  private authError: string | null = null;
  private rejection: string | null = null;
  private reporter: StatusReporter;
  private stopped = false;
  /** The head operation after an attempt without an answer (or a 5xx): it may be applied. */
  private uncertainOp: Op | null = null;

  constructor(opts: QueueOptions) {
    this.opts = opts;
    this.reporter = new StatusReporter((status) => this.opts.onStatus?.(status));
    this.annotationId = opts.annotationId ?? null;
    for (const [k, r] of opts.refs ?? []) this.refs.set(k, r);
    // Changes kept under the per-annotation key (older pages) are picked up and moved.
    const legacy = opts.storageKey && this.annotationId != null ? storageKeyFor(this.annotationId) : null;
    for (const key of [this.storageKey(), legacy]) {
      const ops = key ? readOps(opts.store, key) : null;
      if (!ops?.length) continue;
      this.ops = ops;
      if (legacy && key === legacy) {
        this.persist();
        opts.store?.removeItem(legacy);
      }
      break;
    }
  }

  private storageKey(): string | null {
    if (this.opts.storageKey) return this.opts.storageKey;
    return this.annotationId != null ? storageKeyFor(this.annotationId) : null;
  }

  /** The annotation's id, creating the annotation first when it does not exist yet. */
  annotation(): Promise<number> {
    if (this.annotationId != null) return Promise.resolve(this.annotationId);
    if (!this.opts.ensureAnnotation) return Promise.reject(new Error("no annotation to save into"));
    if (!this.ensuring) {
      this.ensuring = this.opts.ensureAnnotation().then(
        (id) => {
          this.annotationId = id;
          this.ensuring = null;
          this.opts.onAnnotation?.(id);
          return id;
        },
        (e) => {
          this.ensuring = null;
          throw e;
        },
      );
    }
    return this.ensuring;
  }

  /** Operations not yet confirmed by the server, in order. */
  pendingOps(): readonly Op[] {
    return this.ops;
  }

  pending(): number {
    return this.ops.length;
  }

  ref(key: string): ServerRef | undefined {
    return this.refs.get(key);
  }

  setRef(key: string, ref: ServerRef) {
    this.refs.set(key, ref);
  }

  status(): SaveStatus {
    return saveStatus({
      pending: this.ops.length,
      blocked: this.authError,
      offline: this.offline,
      retryMessage: this.retryMessage,
      rejection: this.rejection,
    });
  }

  /** Forget the last refusal shown in the status. */
  dismissError() {
    this.rejection = null;
    this.emit();
  }

  private emit() {
    this.reporter.report(this.status());
  }

  private persist() {
    const key = this.storageKey();
    if (key && this.opts.store) writeOps(this.opts.store, key, this.ops);
  }

  /** Add a change. `delayMs` lets quick successive edits (typing) coalesce before sending. */
  enqueue(op: Op, delayMs = 0) {
    if (this.stopped) return;
    this.ops = coalesce(this.ops, op, this.headInFlight ? 1 : 0);
    this.persist();
    this.emit();
    this.schedule(delayMs);
  }

  private schedule(delayMs: number) {
    if (this.running || this.stopped) return;
    if (this.backingOff) return; // the retry timer will pick it up
    const at = Date.now() + delayMs;
    if (this.timer) {
      if (delayMs > 0 || this.timerAt <= at) {
        clearTimeout(this.timer);
      } else {
        return;
      }
    }
    this.timerAt = at;
    this.timer = setTimeout(() => {
      this.timer = null;
      void this.pump();
    }, delayMs);
  }

  /** Send now (after coming back online, or when the user asks). */
  retryNow() {
    if (this.stopped) return;
    this.authError = null;
    this.backingOff = false;
    this.attempts = 0;
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    void this.pump();
  }

  /** Send everything now; resolves true once all is saved, false if it cannot be (yet). */
  flush(): Promise<boolean> {
    if (!this.ops.length && !this.running) return Promise.resolve(true);
    const p = this.reporter.wait();
    this.retryNow();
    return p;
  }

  /** Stop timers (page left). Pending operations stay in storage. */
  stop() {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    this.reporter.settle(false);
  }

  private backoff(offline: boolean, message: string | null) {
    this.offline = offline;
    this.retryMessage = message;
    const delay = backoffDelay(this.attempts, this.opts.baseDelayMs, this.opts.maxDelayMs);
    this.attempts++;
    this.backingOff = true;
    this.emit();
    if (this.timer) clearTimeout(this.timer);
    this.timer = setTimeout(() => {
      this.timer = null;
      this.backingOff = false;
      void this.pump();
    }, delay);
  }

  private async pump(): Promise<void> {
    if (this.running || this.stopped) return;
    this.running = true;
    try {
      while (this.ops.length && !this.stopped) {
        if (this.opts.isOnline && !this.opts.isOnline()) {
          this.backoff(true, null);
          return;
        }
        if (this.annotationId == null) {
          try {
            await this.annotation();
          } catch (e) {
            const status = statusOf(e);
            if (status === null) this.backoff(true, null);
            else if (status === 401) {
              this.authError = "Signed out: sign in again to save. Your changes are kept in this browser.";
            } else if (status >= 400 && status < 500) {
              this.authError = `Not saved: ${(e as Error).message || errorMessage((e as { data?: unknown }).data)}`;
            } else this.backoff(false, `Server error ${status}; retrying`);
            return;
          }
          if (this.stopped) return;
        }
        const op = this.ops[0];
        this.headInFlight = true;
        let res: HttpResult | "skip";
        try {
          res = await this.send(op);
        } catch {
          this.headInFlight = false;
          this.uncertainOp = op;
          this.backoff(true, null);
          return;
        }
        this.headInFlight = false;
        if (res === "skip") {
          this.ops.shift();
          this.persist();
          continue;
        }
        const outcome = this.handle(op, res);
        if (outcome === "stop") return;
        if (outcome === "retry") {
          this.uncertainOp = op;
          this.backoff(false, `Server error ${res.status}; retrying`);
          return;
        }
      }
    } finally {
      this.running = false;
      this.headInFlight = false;
      this.emit();
    }
  }

  private send(op: Op): Promise<HttpResult> | "skip" {
    const aid = this.annotationId;
    if (op.kind === "create") {
      return this.opts.http("POST", `/api/annotations/${aid}/spans/`, {
        client_id: op.key,
        ...op.fields,
      });
    }
    const ref = this.refs.get(op.key);
    if (!ref) return "skip"; // its creation was refused: nothing to change on the server
    if (op.kind === "update") {
      return this.opts.http("PATCH", `/api/spans/${ref.id}/`, { revision: ref.revision, ...op.fields });
    }
    return this.opts.http("DELETE", `/api/spans/${ref.id}/?revision=${ref.revision}`);
  }

  private appliedBefore(op: Op, current: ServerSpan | undefined): boolean {
    if (op.kind !== "update" || this.uncertainOp !== op || !current) return false;
    const ref = this.refs.get(op.key);
    return !!ref && current.id === ref.id && current.revision === ref.revision + 1 && fieldsApplied(op.fields, current);
  }

  /** Returns "next" (head done or to be re-sent now), "retry" (back off) or "stop". */
  private handle(op: Op, res: HttpResult): "next" | "retry" | "stop" {
    const { status, data } = res;
    if (isOk(res)) {
      this.offline = false;
      this.retryMessage = null;
      this.attempts = 0;
      this.rejection = null;
      if (op.kind === "delete") {
        this.refs.delete(op.key);
        this.ops.shift();
        this.conflicts = 0;
        this.persist();
        this.opts.onSaved?.(op.key, null);
        return "next";
      }
      const span = data as ServerSpan;
      this.refs.set(op.key, { id: span.id, revision: span.revision });
      if (op.kind === "create" && !sameFields(op.fields, span)) {
        // The span existed already (a retried create after a lost response, or a reload):
        // make the server match what the annotator sees.
        this.ops[0] = { kind: "update", key: op.key, fields: op.fields };
      } else {
        this.ops.shift();
        this.conflicts = 0;
      }
      this.persist();
      this.opts.onSaved?.(op.key, span);
      this.emit();
      return "next";
    }
    if (status === 409 && op.kind === "update" && this.appliedBefore(op, data?.current)) {
      // The attempt whose answer was lost (server restart, dropped connection) was applied:
      // the same change again is "stale" only against itself. Saved, not a conflict.
      return this.handle(op, { status: 200, data: data.current });
    }
    if (status === 409 && op.kind !== "create") {
      const current = data?.current as ServerSpan | undefined;
      this.conflicts++;
      if (!current || this.conflicts > (this.opts.maxConflictRetries ?? 5)) {
        this.ops.shift();
        this.conflicts = 0;
        this.persist();
        const message = "This span was changed elsewhere; reload to see the latest version.";
        this.rejection = message;
        this.opts.onRejected?.(op.key, op, message);
        return "next";
      }
      this.refs.set(op.key, { id: current.id, revision: current.revision });
      this.opts.onConflict?.(op.key, current, op);
      return "next"; // re-send the same change on the current revision
    }
    if (status === 404 && op.kind !== "create") {
      this.ops.shift();
      this.ops = this.ops.filter((o) => o.key !== op.key);
      this.refs.delete(op.key);
      this.persist();
      if (op.kind === "update") this.opts.onGone?.(op.key, op);
      else this.opts.onSaved?.(op.key, null); // already deleted: same end result
      return "next";
    }
    if (status === 401 || status === 403) {
      this.authError = "Signed out: sign in again to save. Your changes are kept in this browser.";
      this.emit();
      return "stop";
    }
    if (status === 400 || status === 404 || status === 422) {
      const message = errorMessage(data);
      this.ops.shift();
      this.conflicts = 0;
      this.persist();
      this.rejection = `Not saved: ${message}`;
      this.opts.onRejected?.(op.key, op, message);
      return "next";
    }
    return "retry"; // 408, 429, 5xx, proxies' pages: try again later
  }
}
