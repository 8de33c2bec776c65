// Markdown in a textarea with its rendering beside it (the renderer of the guidelines panel).

import { useMemo, useState } from "preact/hooks";
import { errorAttrs } from "../Field";
import { FieldError } from "../FieldErrors";
import { useDebounced } from "../../hooks/useDebounced";
import { errorId } from "../../lib/ids";
import { renderMarkdown } from "../../lib/markdown";
import "./form.css";

export function MarkdownEditor({
  id,
  label,
  value,
  onValue,
  path,
  messages = [],
  hint,
  rows = 14,
  testId,
}: {
  id: string;
  label: string;
  value: string;
  onValue: (v: string) => void;
  path: string;
  messages?: string[];
  hint?: string;
  rows?: number;
  testId?: string;
}) {
  // On narrow screens the two panes are tabs; on wide ones both show.
  const [tab, setTab] = useState<"write" | "preview">("write");
  const settled = useDebounced(value, 150);
  const html = useMemo(() => renderMarkdown(settled), [settled]);
  return (
    <div class={`field md-editor tab-${tab}`}>
      <div class="md-editor-head">
        <label for={id}>{label}</label>
        <div class="segmented md-tabs" role="group" aria-label="Write or preview">
          <button type="button" class={`btn small${tab === "write" ? " on" : ""}`} aria-pressed={tab === "write"} onClick={() => setTab("write")}>
            Write
          </button>
          <button type="button" class={`btn small${tab === "preview" ? " on" : ""}`} aria-pressed={tab === "preview"} onClick={() => setTab("preview")}>
            Preview
          </button>
        </div>
      </div>
      <div class="md-panes">
        <textarea id={id} class="md-source code-input" rows={rows} value={value} onInput={(e) => onValue((e.target as HTMLTextAreaElement).value)} data-testid={testId} {...errorAttrs(path, messages)} />
        <section class="md-preview markdown" aria-label="Rendered preview" data-testid={testId ? `${testId}-preview` : undefined}>
          {settled.trim() ? <div dangerouslySetInnerHTML={{ __html: html }} /> : <p class="muted">The preview appears here as you type.</p>}
        </section>
      </div>
      {hint && <span class="hint">{hint}</span>}
      <FieldError messages={messages} id={errorId(path)} path={path} />
    </div>
  );
}
