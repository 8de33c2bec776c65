// A ranked field: up to `max` labels, best first (an empty ranking: no fallacy).

import { useState } from "preact/hooks";
import { fieldTitle, rankAdd, rankMove, rankRemove } from "../logic";
import { id, type WidgetProps } from "./common";

export function Ranked({ field, value, readOnly, onChange }: WidgetProps) {
  const ranking = Array.isArray(value) ? (value as string[]) : null;
  const max = field.max ?? 3;
  const [pick, setPick] = useState("");
  const list = ranking ?? [];
  const free = field.labels.filter((l) => !list.includes(l.name));
  const full = list.length >= max;
  const definition = field.labels.find((l) => l.name === pick)?.definition;
  return (
    <div class="item-ranked">
      {ranking === null ? (
        <p class="muted small" data-testid={`ranked-${field.name}-unanswered`}>
          Not answered yet.
        </p>
      ) : list.length === 0 ? (
        <p data-testid={`ranked-${field.name}-none`}>
          <strong>No fallacy</strong>
        </p>
      ) : (
        <ol class="item-rank-list" data-testid={`ranked-${field.name}-list`}>
          {list.map((label, i) => (
            <li key={label}>
              <span class="item-rank-label">{label}</span>
              {!readOnly && (
                <span class="item-rank-actions">
                  <button type="button" class="btn small ghost" aria-label={`Move ${label} up`} disabled={i === 0} onClick={() => onChange(rankMove(list, i, -1))}>
                    ↑
                  </button>
                  <button
                    type="button"
                    class="btn small ghost"
                    aria-label={`Move ${label} down`}
                    disabled={i === list.length - 1}
                    onClick={() => onChange(rankMove(list, i, 1))}
                  >
                    ↓
                  </button>
                  <button type="button" class="btn small ghost" aria-label={`Remove ${label}`} onClick={() => onChange(rankRemove(list, label))}>
                    ✕
                  </button>
                </span>
              )}
            </li>
          ))}
        </ol>
      )}
      {!readOnly && (
        <div class="item-row">
          <label class="sr-only" for={id(field, "pick")}>
            Label to rank for {fieldTitle(field)}
          </label>
          <select id={id(field, "pick")} value={pick} disabled={full} data-testid={`ranked-${field.name}-select`} onChange={(e) => setPick((e.target as HTMLSelectElement).value)}>
            <option value="">{full ? `At most ${max} labels` : "Choose a label…"}</option>
            {free.map((l) => (
              <option key={l.name} value={l.name}>
                {l.name}
              </option>
            ))}
          </select>
          <button
            type="button"
            class="btn small"
            disabled={!pick || full}
            data-testid={`ranked-${field.name}-add`}
            onClick={() => {
              onChange(rankAdd(list, pick, max));
              setPick("");
            }}
          >
            Add to ranking
          </button>
          <button type="button" class="btn small ghost" data-testid={`ranked-${field.name}-no-fallacy`} aria-pressed={ranking !== null && list.length === 0} onClick={() => onChange([])}>
            No fallacy
          </button>
        </div>
      )}
      {definition && <p class="muted small item-def">{definition}</p>}
      <p class="muted small">Best first, up to {max}.</p>
    </div>
  );
}
