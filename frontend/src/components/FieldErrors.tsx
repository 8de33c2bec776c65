import type { FormErrors } from "../lib/formErrors";
import { summarize } from "../lib/formErrors";

/** The messages of one field, under it (give the input aria-describedby={id}). */
export function FieldError({ messages, id, path }: { messages: string[]; id?: string; path?: string }) {
  if (!messages.length) return null;
  return (
    <ul class="field-error" id={id} data-testid="field-error" data-field={path}>
      {messages.map((m, i) => (
        <li key={i}>{m}</li>
      ))}
    </ul>
  );
}

/** Every problem of a refused form, at its top. */
export function ErrorSummary({
  errors,
  describe,
  title = "Nothing was started:",
  testId = "form-errors",
}: {
  errors: FormErrors;
  describe?: (path: string) => string;
  title?: string;
  testId?: string;
}) {
  const items = summarize(errors, describe);
  if (!items.length) return null;
  return (
    <div class="form-error error-summary" role="alert" data-testid={testId}>
      <p>
        <strong>{title}</strong>
      </p>
      <ul>
        {items.map((it, i) => (
          <li key={i} data-field={it.path ?? undefined}>
            {it.text}
          </li>
        ))}
      </ul>
    </div>
  );
}
