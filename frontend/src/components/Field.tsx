import type { ComponentChildren } from "preact";
import { errorId } from "../lib/ids";
import { FieldError } from "./FieldErrors";

/** aria-describedby / aria-invalid for an input whose errors a <Field> shows. */
export function errorAttrs(path: string, messages: string[]) {
  return messages.length ? { "aria-invalid": true as const, "aria-describedby": errorId(path) } : {};
}

/** A control's label; a required one's is followed by an asterisk, outside the label so the
 * label's text stays the field's name (screen readers hear the control's `required`). */
export function FieldLabel({ id, label, required }: { id: string; label: ComponentChildren; required?: boolean }) {
  if (!required) return <label for={id}>{label}</label>;
  return (
    <span class="label-line">
      <label for={id}>{label}</label>
      <span class="required-mark" aria-hidden="true" title="required">
        {" "}
        *
      </span>
    </span>
  );
}

/** A labelled form control with an optional hint and the messages of its error path. */
export function Field({
  id,
  label,
  hint,
  path,
  messages = [],
  class: cls,
  required,
  children,
}: {
  id: string;
  label: ComponentChildren;
  hint?: ComponentChildren;
  path?: string;
  messages?: string[];
  class?: string;
  /** Marks the label with an asterisk (the control itself carries `required`). */
  required?: boolean;
  children: ComponentChildren;
}) {
  return (
    <div class={`field${cls ? ` ${cls}` : ""}`}>
      <FieldLabel id={id} label={label} required={required} />
      {children}
      {hint && <span class="hint">{hint}</span>}
      {path && <FieldError messages={messages} id={errorId(path)} path={path} />}
    </div>
  );
}
