import type { ComponentChildren } from "preact";
import { errorId } from "../lib/ids";
import { FieldError } from "./FieldErrors";

/** aria-describedby / aria-invalid for an input whose errors a <Field> shows. */
export function errorAttrs(path: string, messages: string[]) {
  return messages.length ? { "aria-invalid": true as const, "aria-describedby": errorId(path) } : {};
}

/** A labelled form control with an optional hint and the messages of its error path. */
export function Field({
  id,
  label,
  hint,
  path,
  messages = [],
  class: cls,
  children,
}: {
  id: string;
  label: ComponentChildren;
  hint?: ComponentChildren;
  path?: string;
  messages?: string[];
  class?: string;
  children: ComponentChildren;
}) {
  return (
    <div class={`field${cls ? ` ${cls}` : ""}`}>
      <label for={id}>{label}</label>
      {children}
      {hint && <span class="hint">{hint}</span>}
      {path && <FieldError messages={messages} id={errorId(path)} path={path} />}
    </div>
  );
}
