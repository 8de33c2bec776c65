import { clip, sliceText } from "../../../lib/offsets";
import { type AnnotatorWork, NO_FALLACY, type Proposal } from "../../../types";
import type { GoldSpanDraft } from "./state";

function who(proposed: Record<string, number[]>, label: string, names: Map<number, string>): string {
  const ids = proposed[label] ?? [];
  return ids.length ? ids.map((id) => names.get(id) ?? `#${id}`).join(", ") : "reviewer";
}

export function ProposalList(p: {
  proposals: Proposal[];
  focus: number;
  names: Map<number, string>;
  onFocus(i: number): void;
  onAccept(i: number): void;
  text: string;
}) {
  if (!p.proposals.length) return <p class="muted">No annotator labelled this document: no proposal.</p>;
  return (
    <ol class="adj-proposals" data-testid="proposals">
      {p.proposals.map((proposal, i) => (
        <li key={i} class={i === p.focus ? "focus" : undefined} onClick={() => p.onFocus(i)} data-testid={`proposal-${i}`}>
          <q>{clip(sliceText(p.text, proposal.start, proposal.end).trim(), 120)}</q>
          <div>
            {proposal.labels.map((l) => (
              <span key={l} class={`adj-chip${l === NO_FALLACY ? " optional" : ""}`} title={`proposed by ${who(proposal.proposed_by, l, p.names)}`}>
                {l} <small>({who(proposal.proposed_by, l, p.names)})</small>
              </span>
            ))}
            {proposal.unanimous && <span class="muted"> unanimous</span>}
          </div>
          <button type="button" class="btn small" onClick={() => p.onAccept(i)} data-testid={`accept-proposal-${i}`}>
            Accept <kbd>a</kbd>
          </button>
        </li>
      ))}
    </ol>
  );
}

export function GoldPanel(p: {
  spans: GoldSpanDraft[];
  active: string | null;
  text: string;
  labelNames: string[];
  names: Map<number, string>;
  onActive(key: string): void;
  onToggleLabel(key: string, label: string): void;
  onMove(key: string, edge: "start" | "end", delta: number): void;
  onExplain(key: string, label: string, text: string): void;
  onDelete(key: string): void;
}) {
  if (!p.spans.length)
    return (
      <p class="muted" data-testid="gold-empty">
        No gold span: the document counts as "no fallacy" unless you add one.
      </p>
    );
  return (
    <ul class="adj-gold" data-testid="gold-spans">
      {p.spans.map((s) => (
        <li key={s.key} class={s.key === p.active ? "active" : undefined} onClick={() => p.onActive(s.key)} data-testid="gold-span">
          <q>{clip(sliceText(p.text, s.start, s.end).trim(), 160)}</q>
          <div class="adj-labels" data-testid="gold-labels">
            {s.labels.map((l) => (
              <span key={l} class={`adj-chip${l === NO_FALLACY ? " optional" : ""}`} title={`proposed by ${who(s.proposed_by, l, p.names)}`}>
                {l}
                <button type="button" class="adj-x" aria-label={`Remove ${l}`} onClick={() => p.onToggleLabel(s.key, l)}>
                  ×
                </button>
              </span>
            ))}
          </div>
          <div class="adj-tools">
            <button type="button" class="btn small" onClick={() => p.onToggleLabel(s.key, NO_FALLACY)} data-testid="toggle-no-fallacy">
              {s.labels.includes(NO_FALLACY) ? "Remove ⊥" : "Add ⊥"} <kbd>n</kbd>
            </button>
            <select
              aria-label="Add an alternative label"
              value=""
              onChange={(e) => {
                const v = (e.target as HTMLSelectElement).value;
                if (v) p.onToggleLabel(s.key, v);
              }}
              data-testid="add-label"
            >
              <option value="">+ alternative…</option>
              {p.labelNames
                .filter((l) => !s.labels.includes(l))
                .map((l) => (
                  <option key={l} value={l}>
                    {l}
                  </option>
                ))}
            </select>
            <span class="adj-bounds">
              <button type="button" class="btn small" title="Start one sentence earlier (<)" onClick={() => p.onMove(s.key, "start", -1)}>
                ◀ start
              </button>
              <button type="button" class="btn small" title="Start one sentence later (,)" onClick={() => p.onMove(s.key, "start", 1)}>
                start ▶
              </button>
              <button type="button" class="btn small" title="End one sentence earlier (.)" onClick={() => p.onMove(s.key, "end", -1)}>
                ◀ end
              </button>
              <button type="button" class="btn small" title="End one sentence later (>)" onClick={() => p.onMove(s.key, "end", 1)}>
                end ▶
              </button>
            </span>
            <button type="button" class="btn small danger" onClick={() => p.onDelete(s.key)} data-testid="delete-gold">
              Delete
            </button>
          </div>
          {s.key === p.active &&
            s.labels
              .filter((l) => l !== NO_FALLACY)
              .map((l) => (
                <label key={l} class="adj-explain">
                  Justification for <b>{l}</b>
                  <textarea rows={2} value={s.explanations[l] ?? ""} onInput={(e) => p.onExplain(s.key, l, (e.target as HTMLTextAreaElement).value)} />
                </label>
              ))}
        </li>
      ))}
    </ul>
  );
}

export function namesOf(annotators: AnnotatorWork[]): Map<number, string> {
  return new Map(annotators.map((a) => [a.id, a.username]));
}
