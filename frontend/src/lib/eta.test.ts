import { describe, expect, it } from "vitest";
import { countdown, etaKey, nextAnchor, shownEta } from "./eta";
import { formatEta } from "./format";

const run = (done: number, phase: string | null = "generating") => etaKey({ status: "running", done, phase });

describe("the ETA countdown", () => {
  it("counts down every second from the last estimate while no batch ends", () => {
    const first = nextAnchor(null, run(2), 150, 0);
    const texts = [0, 1000, 2000, 5000].map((t) => formatEta("running", countdown(nextAnchor(first, run(2), 150, t), t)));
    expect(texts).toEqual(["ETA 2 min 30 s", "ETA 2 min 29 s", "ETA 2 min 28 s", "ETA 2 min 25 s"]);
  });

  it("keeps the anchor while the server repeats the same estimate", () => {
    const first = nextAnchor(null, run(2), 150, 0);
    expect(nextAnchor(first, run(2), 150, 9000)).toBe(first);
    expect(countdown(first, 9000)).toBe(141);
  });

  it("takes the new estimate after every batch", () => {
    const first = nextAnchor(null, run(2), 150, 0);
    const after = nextAnchor(first, run(4), 90, 30_000);
    expect(after).not.toBe(first);
    expect(countdown(after, 30_000)).toBe(90);
    expect(countdown(after, 31_000)).toBe(89);
  });

  it("takes a changed estimate of the same batch (the model load counts down on the server)", () => {
    const loading = nextAnchor(null, run(0, "loading"), 40, 0);
    expect(countdown(nextAnchor(loading, run(0, "loading"), 38, 2000), 2000)).toBe(38);
  });

  it("stops at zero and knows nothing without an estimate", () => {
    const first = nextAnchor(null, run(2), 3, 0);
    expect(countdown(first, 10_000)).toBe(0);
    expect(formatEta("running", countdown(first, 10_000))).toBe("finishing");
    expect(countdown(nextAnchor(null, run(0), null, 0), 5000)).toBeNull();
    expect(countdown(null, 0)).toBeNull();
  });

  it("shows a queued run's estimate as it is, then counts down once a worker starts it", () => {
    const queued = { status: "queued", done: 0, phase: null, eta_seconds: 60 };
    const waiting = nextAnchor(null, etaKey(queued), 60, 0);
    expect(shownEta(waiting, queued, 30_000)).toBe(60);
    const started = { ...queued, status: "running", eta_seconds: 59 };
    const anchor = nextAnchor(waiting, etaKey(started), 59, 31_000);
    expect(shownEta(anchor, started, 31_000)).toBe(59);
    expect(shownEta(anchor, started, 35_000)).toBe(55);
  });

  it("takes a new answer of the server even when it repeats its figure (the work overran it)", () => {
    const first = nextAnchor(null, run(0, "loading"), 120, 0);
    expect(countdown(first, 5000)).toBe(115);
    const again = nextAnchor(first, run(0, "loading"), 120, 5000, true);
    expect(countdown(again, 5000)).toBe(120);
  });
});
