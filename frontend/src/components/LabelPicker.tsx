import { useEffect, useLayoutEffect, useMemo, useRef, useState } from "preact/hooks";
import { categoryColor } from "../lib/colors";
import {
  displayOrder,
  filterLabels,
  groupByCategory,
  hotkeyFor,
  isValidLabelSet,
  type LabelOption,
  positionForHotkey,
  toggleLabel,
} from "../lib/labels";
import { NO_FALLACY } from "../types";

export type ConfirmMode = "new" | "merge" | "update";

interface Props {
  options: LabelOption[];
  initial: string[];
  title: string;
  /** Editing an existing span's labels rather than creating one. */
  editing: boolean;
  /** A span already covers exactly this range (offer "add as separate span"). */
  sameRangeSpan: boolean;
  onConfirm(labels: string[], mode: ConfirmMode): void;
  onCancel(): void;
  onFocusLabel(label: LabelOption | null): void;
}

export function LabelPicker(p: Props) {
  const [query, setQuery] = useState("");
  const [labels, setLabels] = useState<string[]>(p.initial);
  const [hi, setHi] = useState(0);
  const [hint, setHint] = useState<string | null>(null);
  const inputRef = useRef<HTMLInputElement>(null);
  const listRef = useRef<HTMLDivElement>(null);
  const order = useMemo(() => p.options.map((o) => o.name), [p.options]);
  const results = useMemo(() => displayOrder(filterLabels(p.options, query)), [p.options, query]);
  const groups = useMemo(() => groupByCategory(results), [results]);
  const highlighted = results[Math.min(hi, results.length - 1)] ?? null;

  useLayoutEffect(() => inputRef.current?.focus(), []); // before the next key event
  useEffect(() => setHi(0), [query]);
  useEffect(() => {
    p.onFocusLabel(highlighted);
    listRef.current?.querySelector(".opt.hi")?.scrollIntoView({ block: "nearest" });
  }, [highlighted?.name]);

  const toggle = (name: string) => {
    setLabels((l) => toggleLabel(l, name, order));
    setHint(null);
  };
  const confirm = (mode: ConfirmMode) => {
    if (!isValidLabelSet(labels)) {
      setHint("Choose at least one fallacy label (“no fallacy” alone is not a span).");
      return;
    }
    p.onConfirm(labels, mode);
  };
  const primaryMode: ConfirmMode = p.editing ? "update" : p.sameRangeSpan ? "merge" : "new";

  const onKeyDown = (e: KeyboardEvent) => {
    const pos = positionForHotkey(e.key);
    if (e.ctrlKey || e.metaKey || e.altKey) return;
    if (pos !== null) {
      e.preventDefault();
      if (results[pos]) toggle(results[pos].name);
    } else if (e.key === "0") {
      e.preventDefault();
      toggle(NO_FALLACY);
    } else if (e.key === "ArrowDown") {
      e.preventDefault();
      setHi((h) => Math.min(results.length - 1, h + 1));
    } else if (e.key === "ArrowUp") {
      e.preventDefault();
      setHi((h) => Math.max(0, h - 1));
    } else if (e.key === " " && !query) {
      e.preventDefault();
      if (highlighted) toggle(highlighted.name);
    } else if (e.key === "Enter") {
      e.preventDefault();
      if (query.trim()) {
        if (highlighted) {
          if (!labels.includes(highlighted.name)) toggle(highlighted.name);
          setQuery("");
        }
      } else if (e.shiftKey && !p.editing) {
        confirm("new");
      } else {
        confirm(primaryMode);
      }
    } else if (e.key === "Escape") {
      e.preventDefault();
      e.stopPropagation();
      if (query) setQuery("");
      else p.onCancel();
    } else if (e.key === "Backspace" && !query && labels.length) {
      e.preventDefault();
      setLabels((l) => l.slice(0, -1));
    }
  };

  const noFallacy = labels.includes(NO_FALLACY);
  const categoryOf = new Map(p.options.map((o) => [o.name, o.categoryIndex]));

  return (
    <section class="panel picker" aria-labelledby="picker-title">
      <div class="panel-head">
        <h2 id="picker-title">{p.title}</h2>
        <button type="button" class="btn ghost small" onClick={p.onCancel}>
          Cancel <kbd>Esc</kbd>
        </button>
      </div>
      <div class="chosen" aria-label="Chosen labels (alternatives)">
        {labels.length === 0 && <span class="muted small">No label chosen yet. Several labels are alternatives for one span.</span>}
        {labels.map((l) => (
          <span class={`tag${l === NO_FALLACY ? " optional" : ""}`} style={{ "--c": categoryColor(categoryOf.get(l)) }} key={l}>
            {l}
            <button type="button" class="tag-x" aria-label={`Remove ${l}`} onClick={() => toggle(l)}>
              ×
            </button>
          </span>
        ))}
      </div>
      <input
        ref={inputRef}
        class="search"
        type="search"
        placeholder="Type to filter labels…"
        aria-label="Filter labels"
        aria-controls="label-list"
        aria-activedescendant={highlighted ? `opt-${order.indexOf(highlighted.name)}` : undefined}
        value={query}
        onInput={(e) => setQuery(e.currentTarget.value)}
        onKeyDown={onKeyDown}
      />
      <label class="check">
        <input type="checkbox" checked={noFallacy} onChange={() => toggle(NO_FALLACY)} />
        <span>
          “No fallacy” is also acceptable <kbd>0</kbd>
        </span>
      </label>
      <div class="opt-list" id="label-list" role="listbox" aria-multiselectable="true" aria-label="Labels" ref={listRef}>
        {groups.map((g) => (
          <div class="opt-group" role="group" aria-label={g.category} key={g.category}>
            <div class="opt-group-name">
              <span class="swatch" style={{ background: categoryColor(g.categoryIndex) }} aria-hidden="true" />
              {g.category}
            </div>
            {g.options.map(({ option }) => {
              const position = results.indexOf(option);
              const key = hotkeyFor(position);
              const chosen = labels.includes(option.name);
              return (
                <div
                  id={`opt-${order.indexOf(option.name)}`}
                  role="option"
                  aria-selected={chosen}
                  class={`opt${chosen ? " chosen" : ""}${option === highlighted ? " hi" : ""}`}
                  key={option.name}
                  onMouseEnter={() => setHi(position)}
                  onClick={() => {
                    toggle(option.name);
                    inputRef.current?.focus();
                  }}
                >
                  <span class="hotkey" aria-hidden="true">
                    {key ?? ""}
                  </span>
                  <span class="opt-check" aria-hidden="true">
                    {chosen ? "✓" : ""}
                  </span>
                  <span class="opt-name">{option.name}</span>
                </div>
              );
            })}
          </div>
        ))}
        {results.length === 0 && <p class="muted small pad">No label matches “{query}”.</p>}
      </div>
      {hint && (
        <p class="form-error small" role="alert">
          {hint}
        </p>
      )}
      <div class="picker-actions">
        <button type="button" class="btn primary" onClick={() => confirm(primaryMode)} disabled={!isValidLabelSet(labels)}>
          {primaryMode === "update" ? "Update labels" : primaryMode === "merge" ? "Add to existing span" : "Create span"} <kbd>Enter</kbd>
        </button>
        {!p.editing && p.sameRangeSpan && (
          <button type="button" class="btn" onClick={() => confirm("new")} disabled={!isValidLabelSet(labels)}>
            Add as separate span <kbd>Shift+Enter</kbd>
          </button>
        )}
      </div>
      <p class="muted small">
        Type and press <kbd>Enter</kbd> to add the top match; <kbd>↑</kbd>/<kbd>↓</kbd> then <kbd>Space</kbd> to toggle; with an empty
        filter <kbd>Enter</kbd> confirms.
      </p>
    </section>
  );
}
