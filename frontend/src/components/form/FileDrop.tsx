// A file picker that also takes a file dropped on it.

import type { ComponentChildren } from "preact";
import { useState } from "preact/hooks";
import { FieldLabel, errorAttrs } from "../Field";
import { FieldError } from "../FieldErrors";
import { errorId } from "../../lib/ids";
import { formatSize } from "./size";
import "./form.css";

export function FileDrop({
  id,
  label,
  accept,
  file,
  onFile,
  path = "file",
  messages = [],
  hint,
  testId,
  required,
}: {
  id: string;
  label: ComponentChildren;
  accept?: string;
  file: File | null;
  onFile: (f: File | null) => void;
  path?: string;
  messages?: string[];
  hint?: ComponentChildren;
  testId?: string;
  /** Marked with an asterisk and `required`. */
  required?: boolean;
}) {
  const [over, setOver] = useState(false);
  const drop = (e: DragEvent) => {
    e.preventDefault();
    setOver(false);
    const f = e.dataTransfer?.files?.[0];
    if (f) onFile(f);
  };
  return (
    <div class="field">
      <FieldLabel id={id} label={label} required={required} />
      <div
        class={`file-drop${over ? " over" : ""}${messages.length ? " invalid" : ""}`}
        onDragOver={(e) => {
          e.preventDefault();
          setOver(true);
        }}
        onDragLeave={() => setOver(false)}
        onDrop={drop}
      >
        <input
          id={id}
          type="file"
          accept={accept}
          required={required}
          onChange={(e) => onFile((e.target as HTMLInputElement).files?.[0] ?? null)}
          data-testid={testId}
          {...errorAttrs(path, messages)}
        />
        <span class="file-drop-text muted small" aria-live="polite">
          {file ? formatSize(file.size) : "or drop a file here"}
        </span>
      </div>
      {hint && <span class="hint">{hint}</span>}
      <FieldError messages={messages} id={errorId(path)} path={path} />
    </div>
  );
}
