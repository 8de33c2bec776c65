// Superusers only: create a user account (then add it to the project above).

import { useState } from "preact/hooks";
import { TextField, sendJson, submitForm } from "../../../components/form";
import { type FormErrors, NO_ERRORS, messagesFor } from "../../../lib/formErrors";
import type { NewAccount } from "../../../types";

const EMPTY = { username: "", email: "", password: "" };

export function CreateAccount({ onCreated }: { onCreated: (a: NewAccount) => void }) {
  const [open, setOpen] = useState(false);
  const [form, setForm] = useState(EMPTY);
  const [errors, setErrors] = useState<FormErrors>(NO_ERRORS);
  const [busy, setBusy] = useState(false);
  const [created, setCreated] = useState<NewAccount | null>(null);
  const set = (patch: Partial<typeof EMPTY>) => setForm((f) => ({ ...f, ...patch }));

  const submit = async (e: Event) => {
    e.preventDefault();
    if (busy) return;
    const missing: FormErrors = { fields: {}, general: [] };
    if (!form.username.trim()) missing.fields.username = ["Choose a username."];
    if (!form.password) missing.fields.password = ["Choose a password."];
    if (Object.keys(missing.fields).length) return setErrors(missing);
    await submitForm(() => sendJson("POST", "/api/users/", { username: form.username.trim(), email: form.email.trim(), password: form.password }), {
      setBusy,
      setErrors,
      offline: "The server cannot be reached; no account was created.",
      onOk: (res) => {
        const a = res.data as NewAccount;
        setCreated(a);
        setForm(EMPTY);
        onCreated(a);
      },
    });
  };

  return (
    <section class="panel admin-section" aria-labelledby="create-account-title" data-testid="create-account">
      <div class="section-head">
        <h2 id="create-account-title">Create an account</h2>
        {!open && (
          <button type="button" class="btn small" onClick={() => setOpen(true)} data-testid="open-create-account">
            Create an account…
          </button>
        )}
      </div>
      <p class="muted small">For someone who has no account yet (you are a superuser). Share the password with them; they can then sign in.</p>
      {created && (
        <p class="note" role="status" data-testid="account-created">
          Created the account {created.username}
          {created.email ? ` (${created.email})` : ""}: it is filled in above, choose a role and add it.
        </p>
      )}
      {open && (
        <form onSubmit={submit} noValidate data-testid="create-account-form">
          {errors.general.length > 0 && (
            <p class="form-error" role="alert">
              {errors.general.join(" ")}
            </p>
          )}
          <div class="field-row">
            <TextField id="account-username" label="New username" path="username" value={form.username} onValue={(username) => set({ username })} messages={messagesFor(errors, "username")} autoComplete="off" />
            <TextField id="account-email" label="E-mail (optional)" path="email" type="email" class="grow" value={form.email} onValue={(email) => set({ email })} messages={messagesFor(errors, "email")} autoComplete="off" />
            <TextField id="account-password" label="Password" path="password" type="password" value={form.password} onValue={(password) => set({ password })} messages={messagesFor(errors, "password")} autoComplete="new-password" />
          </div>
          <div class="form-actions">
            <button type="submit" class="btn primary" disabled={busy} data-testid="create-account-submit">
              {busy ? "Creating…" : "Create account"}
            </button>
            <button type="button" class="btn ghost" onClick={() => (setOpen(false), setErrors(NO_ERRORS))}>
              Cancel
            </button>
          </div>
        </form>
      )}
    </section>
  );
}
