import type { ShownSpan } from "../../components/DocumentText";

function SpanButton({ s, active, range, onClick }: { s: ShownSpan; active?: boolean; range?: boolean; onClick(): void }) {
  return (
    <button type="button" class={`span-item${active ? " active" : ""}`} style={{ "--c": s.color }} aria-current={active} onClick={onClick}>
      <span class={`swatch${s.optional ? " optional" : ""}`} aria-hidden="true" />
      <span class="span-labels">{s.title}</span>
      {range && <span class="span-range muted">{s.first === s.last ? `S${s.first + 1}` : `S${s.first + 1}–${s.last + 1}`}</span>}
    </button>
  );
}

/** The spans on the focused sentence (in the selection panel). */
export function SpansHere({ spans, onOpen }: { spans: ShownSpan[]; onOpen(key: string): void }) {
  if (!spans.length) return null;
  return (
    <>
      <h3 class="eyebrow">Spans on this sentence</h3>
      <ul class="span-list compact">
        {spans.map((s) => (
          <li key={s.key}>
            <SpanButton s={s} onClick={() => onOpen(s.key)} />
          </li>
        ))}
      </ul>
    </>
  );
}

/** Every span of the annotation shown, in text order. */
export function SpanListPanel({ spans, activeKey, onOpen }: { spans: ShownSpan[]; activeKey: string | null; onOpen(key: string): void }) {
  return (
    <section class="panel spans" aria-labelledby="spans-title">
      <div class="panel-head">
        <h2 id="spans-title">Spans ({spans.length})</h2>
      </div>
      {spans.length === 0 ? (
        <p class="muted small">No spans yet. A document without spans counts as “no fallacy”.</p>
      ) : (
        <ul class="span-list">
          {spans.map((s) => (
            <li key={s.key}>
              <SpanButton s={s} active={s.key === activeKey} range onClick={() => onOpen(s.key)} />
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}
