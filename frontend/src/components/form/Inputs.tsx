// Labelled inputs that show their field's server messages (a <Field> around one control).

import type { ComponentChildren, JSX } from "preact";
import { Field, errorAttrs } from "../Field";

const valueOf = (e: Event) => (e.target as HTMLInputElement).value;

interface Common {
  id: string;
  label: ComponentChildren;
  /** The error path of the field ("name", "annotators_per_document"). */
  path: string;
  messages?: string[];
  hint?: ComponentChildren;
  class?: string;
  testId?: string;
  disabled?: boolean;
  /** Marked with an asterisk and `required` (forms send with noValidate: the server's messages show). */
  required?: boolean;
}

export function TextField({
  value,
  onValue,
  type = "text",
  autoComplete,
  placeholder,
  inputAttrs,
  ...c
}: Common & {
  value: string;
  onValue: (v: string) => void;
  type?: string;
  autoComplete?: string;
  placeholder?: string;
  /** Further attributes of the input (a combobox's role, aria-* and key handler). */
  inputAttrs?: JSX.HTMLAttributes<HTMLInputElement>;
}) {
  const msgs = c.messages ?? [];
  return (
    <Field id={c.id} label={c.label} hint={c.hint} path={c.path} messages={msgs} class={c.class} required={c.required}>
      <input
        {...inputAttrs}
        id={c.id}
        type={type}
        value={value}
        required={c.required}
        placeholder={placeholder}
        autoComplete={autoComplete}
        disabled={c.disabled}
        onInput={(e) => onValue(valueOf(e))}
        data-testid={c.testId}
        {...errorAttrs(c.path, msgs)}
      />
    </Field>
  );
}

/** A number typed as text (so a half-typed value is kept); parse it when sending. */
export function NumberField({ value, onValue, min, max, ...c }: Common & { value: string; onValue: (v: string) => void; min?: number; max?: number }) {
  const msgs = c.messages ?? [];
  return (
    <Field id={c.id} label={c.label} hint={c.hint} path={c.path} messages={msgs} class={c.class ?? "narrow-input"} required={c.required}>
      <input
        id={c.id}
        type="number"
        inputMode="numeric"
        min={min}
        max={max}
        value={value}
        required={c.required}
        disabled={c.disabled}
        onInput={(e) => onValue(valueOf(e))}
        data-testid={c.testId}
        {...errorAttrs(c.path, msgs)}
      />
    </Field>
  );
}

export function TextArea({ value, onValue, rows = 3, ...c }: Common & { value: string; onValue: (v: string) => void; rows?: number }) {
  const msgs = c.messages ?? [];
  return (
    <Field id={c.id} label={c.label} hint={c.hint} path={c.path} messages={msgs} class={c.class} required={c.required}>
      <textarea id={c.id} rows={rows} value={value} required={c.required} disabled={c.disabled} onInput={(e) => onValue(valueOf(e))} data-testid={c.testId} {...errorAttrs(c.path, msgs)} />
    </Field>
  );
}

export interface Option {
  value: string;
  label: string;
  disabled?: boolean;
}

export function Select({ value, onValue, options, placeholder, ...c }: Common & { value: string; onValue: (v: string) => void; options: Option[]; placeholder?: string }) {
  const msgs = c.messages ?? [];
  return (
    <Field id={c.id} label={c.label} hint={c.hint} path={c.path} messages={msgs} class={c.class} required={c.required}>
      <select id={c.id} value={value} required={c.required} disabled={c.disabled} onChange={(e) => onValue(valueOf(e))} data-testid={c.testId} {...errorAttrs(c.path, msgs)}>
        {placeholder !== undefined && <option value="">{placeholder}</option>}
        {options.map((o) => (
          <option key={o.value} value={o.value} disabled={o.disabled}>
            {o.label}
          </option>
        ))}
      </select>
    </Field>
  );
}
