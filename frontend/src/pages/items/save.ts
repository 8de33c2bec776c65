// Autosave of an item response: changed fields wait (coalesced: the latest value of a field
// wins), then go as one PATCH with the revision last seen; the first save starts the
// annotation (revision null). One request at a time; a network failure or a server error
// is retried with backoff; 400 drops the refused fields and says why; 409 (changed in another
// tab or by a reviewer) stops saving until the page loads the current version. No DOM: the
// HTTP function is injected, so it runs under Vitest.

import { errorMessage, type Http, type HttpResult, isOk } from "../../lib/http";
import { backoffDelay, type SaveStatus, saveStatus, StatusReporter } from "../../lib/saveStatus";
import type { ItemAnswer, ItemState } from "../../types";

export type Changes = Record<string, ItemAnswer | null>;

export interface ResponseSaverOptions {
  docId: number;
  /** The revision last seen (null: no annotation yet). */
  revision: number | null;
  http: Http;
  baseDelayMs?: number;
  maxDelayMs?: number;
  onStatus?(status: SaveStatus): void;
  /** The server's state after a successful save. */
  onSaved?(state: ItemState): void;
  /** 409: the state as it is now on the server. Saving stops until `reset`. */
  onConflict?(current: ItemState | null, unsaved: Changes): void;
  /** 400: these changes were refused and dropped; `errors` is the body ({"response.x": [..]}). */
  onRejected?(changes: Changes, errors: Record<string, string[]>): void;
}

export function responseUrl(docId: number): string {
  return `/api/documents/${docId}/response/`;
}

/** Why saving has stopped, by the saver's state. */
const BLOCKED: Record<"idle" | "conflict" | "auth", string | null> = {
  idle: null,
  conflict: "Changed elsewhere: load the current version",
  auth: "Signed out: sign in again to save",
};

export class ResponseSaver {
  revision: number | null;
  private opts: ResponseSaverOptions;
  private pending: Changes = {};
  private inFlight: Changes | null = null;
  private timer: ReturnType<typeof setTimeout> | null = null;
  private attempts = 0;
  private state: "idle" | "conflict" | "auth" = "idle";
  private retryMessage: string | null = null;
  private offline = false;
  private rejection: string | null = null;
  private reporter: StatusReporter;
  private stopped = false;

  constructor(opts: ResponseSaverOptions) {
    this.opts = opts;
    this.reporter = new StatusReporter((status) => this.opts.onStatus?.(status));
    this.revision = opts.revision;
  }

  /** Changes not confirmed by the server yet (being sent, then waiting). */
  unsaved(): Changes {
    return { ...(this.inFlight ?? {}), ...this.pending };
  }

  status(): SaveStatus {
    return saveStatus({
      pending: Object.keys(this.unsaved()).length,
      blocked: BLOCKED[this.state],
      offline: this.offline,
      retryMessage: this.retryMessage,
      rejection: this.rejection,
    });
  }

  private emit() {
    this.reporter.report(this.status());
  }

  /** A field changed (null: cleared). `delayMs` lets typing coalesce before sending. */
  change(name: string, value: ItemAnswer | null, delayMs = 0) {
    if (this.stopped) return;
    this.pending[name] = value;
    this.rejection = null;
    this.emit();
    this.schedule(delayMs);
  }

  private schedule(delayMs: number) {
    if (this.inFlight || this.stopped || this.state !== "idle") return;
    if (this.timer) clearTimeout(this.timer);
    this.timer = setTimeout(() => {
      this.timer = null;
      void this.send();
    }, delayMs);
  }

  /** Send now; resolves true once everything is saved, false if it cannot be (yet). */
  flush(): Promise<boolean> {
    if (!Object.keys(this.unsaved()).length) return Promise.resolve(this.state === "idle");
    const p = this.reporter.wait();
    this.retryNow();
    return p;
  }

  retryNow() {
    if (this.stopped || this.state === "conflict") return;
    this.state = "idle";
    this.attempts = 0;
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    void this.send();
  }

  /** Start over from a state loaded from the server (after a conflict), dropping changes. */
  reset(revision: number | null) {
    this.revision = revision;
    this.pending = {};
    this.state = "idle";
    this.rejection = null;
    this.retryMessage = null;
    this.emit();
  }

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
    this.emit();
    if (this.timer) clearTimeout(this.timer);
    this.timer = setTimeout(() => {
      this.timer = null;
      void this.send();
    }, delay);
  }

  private async send(): Promise<void> {
    if (this.inFlight || this.stopped || this.state !== "idle") return;
    if (!Object.keys(this.pending).length) {
      this.emit();
      return;
    }
    const sent = this.pending;
    this.inFlight = sent;
    this.pending = {};
    let res: HttpResult;
    try {
      res = await this.opts.http("PATCH", responseUrl(this.opts.docId), {
        revision: this.revision,
        response: sent,
      });
    } catch {
      this.requeue(sent);
      this.backoff(true, null);
      return;
    }
    this.inFlight = null;
    if (this.stopped) return;
    const { status, data } = res;
    if (isOk(res)) {
      const state = data as ItemState;
      this.revision = state.annotation?.revision ?? this.revision;
      this.attempts = 0;
      this.offline = false;
      this.retryMessage = null;
      this.opts.onSaved?.(state);
      this.emit();
      if (Object.keys(this.pending).length) void this.send();
      return;
    }
    if (status === 409) {
      this.requeue(sent);
      this.state = "conflict";
      this.emit();
      this.opts.onConflict?.((data?.current as ItemState) ?? null, this.unsaved());
      return;
    }
    if (status === 401 || status === 403) {
      this.requeue(sent);
      this.state = "auth";
      this.emit();
      return;
    }
    if (status === 400 || status === 404) {
      this.rejection = `Not saved: ${errorMessage(data)}`;
      const errors = data && typeof data === "object" ? (data as Record<string, string[]>) : {};
      this.opts.onRejected?.(sent, errors);
      this.emit();
      if (Object.keys(this.pending).length) void this.send();
      return;
    }
    this.requeue(sent);
    this.backoff(false, `Server error ${status}; retrying`);
  }

  /** Put changes that were not saved back in front of newer ones (newer values win). */
  private requeue(sent: Changes) {
    this.inFlight = null;
    this.pending = { ...sent, ...this.pending };
  }
}
