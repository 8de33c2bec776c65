import { useState } from "preact/hooks";
import { useResource } from "../hooks/useResource";
import { pairLines, pairText } from "../lib/pairs";
import { tooFewNote } from "../lib/smallSample";
import type { PairOption } from "../lib/pairs";
import type { ItemPair, SpanPair } from "../types";

/** Pick two rows of a results table and see the paired test of A minus B on the units both
 *  were scored on: the difference, its interval and p (`url(a, b)` asks the board with
 *  `?compare=A,B`). */
export function ComparePair({ options, url, units }: { options: PairOption[]; url: (a: string, b: string) => string; units: string }) {
  const [a, setA] = useState("");
  const [b, setB] = useState("");
  const ready = a && b && a !== b;
  const answer = useResource<{ compare?: ItemPair | SpanPair | null }>(ready ? url(a, b) : null);
  const pair = ready ? answer.data?.compare : null;
  const fresh = pair && pair.a.key === a && pair.b.key === b;
  const pick = (label: string, value: string, set: (v: string) => void, id: string) => (
    <label class="inline-field">
      <span>{label}</span>
      <select value={value} onChange={(e) => set((e.target as HTMLSelectElement).value)} data-testid={id}>
        <option value="">choose a row</option>
        {options.map((o) => (
          <option key={o.key} value={o.key}>
            {o.label}
          </option>
        ))}
      </select>
    </label>
  );
  return (
    <section class="compare-pair" data-testid="compare-pair">
      <h2>Compare two rows</h2>
      <p class="muted small">
        The paired test of A minus B over the {units} both were scored on: the difference, its 95% paired bootstrap interval and the approximate randomisation p.
      </p>
      <div class="head-actions">
        {pick("A", a, setA, "compare-a")}
        {pick("B", b, setB, "compare-b")}
      </div>
      {a && a === b && <p class="muted">Choose two different rows.</p>}
      {ready && answer.error && (
        <p class="form-error" role="alert">
          {answer.error.message}
        </p>
      )}
      {ready && !fresh && !answer.error && <p class="muted">Loading…</p>}
      {fresh && pair && (
        <ul class="compare-lines" data-testid="compare-result">
          {pairLines(pair).map((line) => (
            <li key={line.id} data-testid="compare-line" data-significant={line.significant ? "yes" : "no"}>
              {line.where && <strong>{line.where}: </strong>}
              {pairText(line, pair.alpha)}
              {line.significant && <sup class="significant"> *</sup>}
              {line.test && tooFewNote(line.test.units, units, pair.alpha) && (
                <span class="lb-about note-text" data-testid="too-few">
                  {tooFewNote(line.test.units, units, pair.alpha)}
                </span>
              )}
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}
