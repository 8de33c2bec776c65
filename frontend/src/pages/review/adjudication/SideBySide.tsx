import { sliceText } from "../../../lib/offsets";
import { type AdjSpan, type AnnotatorWork, NO_FALLACY } from "../../../types";
import type { GoldSpanDraft } from "./state";

export interface Picked {
  annotator: number;
  index: number;
}

const pickKey = (p: Picked) => `${p.annotator}:${p.index}`;

function Chips({ labels }: { labels: string[] }) {
  return (
    <>
      {labels.map((l) => (
        <span key={l} class={`adj-chip${l === NO_FALLACY ? " optional" : ""}`}>
          {l}
        </span>
      ))}
    </>
  );
}

function Justification({ span }: { span: AdjSpan }) {
  const entries = Object.entries(span.details ?? {}).filter(([, d]) => d.explanation || Object.keys(d.slots ?? {}).length);
  if (!entries.length) return null;
  return (
    <div class="adj-why">
      {entries.map(([label, d]) => (
        <p key={label}>
          <b>{label}:</b> {Object.entries(d.slots ?? {}).map(([k, v]) => `${k}=${v}`).join(", ")}
          {d.explanation ? ` ${d.explanation}` : ""}
        </p>
      ))}
    </div>
  );
}

function startsIn(span: { start: number; end: number }, sentence: [number, number], first: boolean): boolean {
  return (span.start >= sentence[0] && span.start < sentence[1]) || (first && span.start < sentence[0] && span.end > sentence[0]);
}

/**
 * Every annotator's spans side by side, one column each, one row per sentence (a span is shown
 * in the row of its first sentence, with how many sentences it covers), the gold last.
 * Clicking an annotator's span picks it for "merge"/"accept"; "+ span…" in the gold column
 * starts a gold span on a sentence nobody (or not the right way) labelled.
 */
export function SideBySide(p: {
  text: string;
  sentences: [number, number][];
  annotators: AnnotatorWork[];
  gold: GoldSpanDraft[];
  picked: Picked[];
  activeGold: string | null;
  onPick(p: Picked): void;
  onGold(key: string): void;
  labelNames: string[];
  onAdd(row: number, label: string): void;
}) {
  const picked = new Set(p.picked.map(pickKey));
  const sentenceCount = (s: { start: number; end: number }) => p.sentences.filter(([a, b]) => a < s.end && s.start < b).length;
  return (
    <div class="adj-grid-wrap">
      <table class="adj-grid" data-testid="side-by-side">
        <thead>
          <tr>
            <th class="adj-sent-h">Sentence</th>
            {p.annotators.map((a) => (
              <th key={a.id}>
                {a.username}
                {a.status !== "submitted" && <span class="muted"> ({a.status.replace("_", " ")})</span>}
              </th>
            ))}
            <th>Gold</th>
          </tr>
        </thead>
        <tbody>
          {p.sentences.map((sentence, row) => (
            <tr key={row} data-testid={`sentence-row-${row}`}>
              <td class="adj-sent">
                <span class="adj-index">{row + 1}</span> {sliceText(p.text, sentence[0], sentence[1])}
              </td>
              {p.annotators.map((a) => (
                <td key={a.id}>
                  {a.spans.map((span, index) =>
                    startsIn(span, sentence, row === 0) ? (
                      <button
                        key={index}
                        type="button"
                        class={`adj-span${picked.has(pickKey({ annotator: a.id, index })) ? " picked" : ""}`}
                        aria-pressed={picked.has(pickKey({ annotator: a.id, index }))}
                        data-testid={`ann-span-${a.username}-${row}`}
                        onClick={() => p.onPick({ annotator: a.id, index })}
                        title="Pick for merge (m) or accept (a)"
                      >
                        <Chips labels={span.labels} />
                        {sentenceCount(span) > 1 && <span class="muted"> ×{sentenceCount(span)} sentences</span>}
                        <Justification span={span} />
                      </button>
                    ) : null,
                  )}
                </td>
              ))}
              <td>
                {p.gold.map((g) =>
                  startsIn(g, sentence, row === 0) ? (
                    <button key={g.key} type="button" class={`adj-span gold${p.activeGold === g.key ? " active" : ""}`} onClick={() => p.onGold(g.key)} data-testid={`gold-cell-${row}`}>
                      <Chips labels={g.labels} />
                      {sentenceCount(g) > 1 && <span class="muted"> ×{sentenceCount(g)}</span>}
                    </button>
                  ) : null,
                )}
                <select
                  class="adj-add"
                  aria-label={`New gold span on sentence ${row + 1}`}
                  title="New gold span on this sentence"
                  value=""
                  onChange={(e) => {
                    const v = (e.target as HTMLSelectElement).value;
                    if (v) p.onAdd(row, v);
                  }}
                  data-testid={`add-gold-${row}`}
                >
                  <option value="">+ span…</option>
                  {p.labelNames.map((l) => (
                    <option key={l} value={l}>
                      {l}
                    </option>
                  ))}
                </select>
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
