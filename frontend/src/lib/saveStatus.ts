// What an autosaving page shows about its unsaved work, shared by the span queue (autosave.ts)
// and the item response saver: the status, the retry delay, and the waiters of `flush()`.

export type SaveStatus =
  | { state: "saved" }
  | { state: "saving"; pending: number }
  | { state: "offline"; pending: number }
  | { state: "retrying"; pending: number; message: string }
  | { state: "error"; pending: number; message: string };

export interface SaveState {
  /** Changes not confirmed by the server yet. */
  pending: number;
  /** Why saving has stopped until the user acts (signed out, changed elsewhere); null: it has not. */
  blocked: string | null;
  /** The last attempt got no answer. */
  offline: boolean;
  /** The last attempt got a server error; sending again after a delay. */
  retryMessage: string | null;
  /** The last change the server refused (shown until the next change is saved or dismissed). */
  rejection: string | null;
}

/** The status to show; a stop outranks the network, the network outranks a past refusal. */
export function saveStatus({ pending, blocked, offline, retryMessage, rejection }: SaveState): SaveStatus {
  if (blocked) return { state: "error", pending, message: blocked };
  if (pending && offline) return { state: "offline", pending };
  if (pending && retryMessage) return { state: "retrying", pending, message: retryMessage };
  if (pending) return { state: "saving", pending };
  if (rejection) return { state: "error", pending, message: rejection };
  return { state: "saved" };
}

/** Milliseconds before retry number `attempts` (0-based): doubling from `baseMs`, at most `maxMs`. */
export function backoffDelay(attempts: number, baseMs = 1000, maxMs = 30000): number {
  return Math.min(maxMs, baseMs * 2 ** attempts);
}

/**
 * Passes each new status on once (an unchanged status is not repeated) and settles the
 * promises of `flush()`: true once everything is saved, false when saving is stuck
 * (offline, retrying, refused, stopped).
 */
export class StatusReporter {
  private last = "";
  private waiters: ((ok: boolean) => void)[] = [];
  private onStatus: (status: SaveStatus) => void;

  constructor(onStatus: (status: SaveStatus) => void) {
    this.onStatus = onStatus;
  }

  report(status: SaveStatus) {
    const sig = JSON.stringify(status);
    if (sig !== this.last) {
      this.last = sig;
      this.onStatus(status);
    }
    if (status.state === "saved") this.settle(true);
    else if (status.state !== "saving") this.settle(false);
  }

  /** A promise that settles with the next "saved" (true) or stuck (false) status. */
  wait(): Promise<boolean> {
    return new Promise<boolean>((resolve) => this.waiters.push(resolve));
  }

  settle(ok: boolean) {
    const waiting = this.waiters;
    this.waiters = [];
    for (const resolve of waiting) resolve(ok);
  }
}
