// An invitation link (/invite/<token>/): signed in, join with that account; otherwise choose a
// username and password. Either way the person lands in the project.

import { useEffect, useState } from "preact/hooks";
import { ensureCsrf, http } from "../api";
import { TextField } from "../components/form";
import { type FormErrors, NO_ERRORS, messagesFor, toFormErrors } from "../lib/formErrors";
import type { InvitationOffer } from "../types";

type Load = { state: "loading" } | { state: "ok"; offer: InvitationOffer } | { state: "refused"; text: string };

const REFUSED: Record<number, string> = {
  404: "This invitation link is not valid. Check that it was copied whole.",
  410: "This invitation was already used, was revoked or has expired. Ask the project's admin for a new one.",
  429: "Too many attempts from here. Try again later.",
};

export function InvitePage({ token, onJoined }: { token: string; onJoined: (projectId: number) => Promise<void> }) {
  const [load, setLoad] = useState<Load>({ state: "loading" });
  const [form, setForm] = useState({ username: "", password: "", again: "" });
  const [errors, setErrors] = useState<FormErrors>(NO_ERRORS);
  const [busy, setBusy] = useState(false);
  const url = `/api/invitations/${encodeURIComponent(token)}/`;

  useEffect(() => {
    http("GET", url)
      .then((res) => {
        if (res.status === 200) setLoad({ state: "ok", offer: res.data as InvitationOffer });
        else setLoad({ state: "refused", text: REFUSED[res.status] ?? `The invitation cannot be read (${res.status}).` });
      })
      .catch(() => setLoad({ state: "refused", text: "Cannot reach the server. Check your connection and reload." }));
  }, [url]);

  const join = async (e: Event) => {
    e.preventDefault();
    if (busy || load.state !== "ok") return;
    const signedIn = load.offer.signed_in_as !== null;
    if (!signedIn) {
      const missing: FormErrors = { fields: {}, general: [] };
      if (!form.username.trim()) missing.fields.username = ["Choose a username."];
      if (!form.password) missing.fields.password = ["Choose a password."];
      else if (form.password !== form.again) missing.fields.again = ["The two passwords differ."];
      if (Object.keys(missing.fields).length) return setErrors(missing);
    }
    setBusy(true);
    setErrors(NO_ERRORS);
    try {
      await ensureCsrf();
      const res = await http("POST", `${url}accept/`, signedIn ? {} : { username: form.username.trim(), password: form.password });
      if (res.status === 200) return await onJoined((res.data as { project: number }).project);
      if (REFUSED[res.status]) setLoad({ state: "refused", text: REFUSED[res.status] });
      else setErrors(toFormErrors(res.data, res.status));
    } catch {
      setErrors({ fields: {}, general: ["Cannot reach the server; you did not join yet."] });
    } finally {
      setBusy(false);
    }
  };

  return (
    <main class="login">
      <form class="login-card" onSubmit={join} aria-labelledby="invite-title" noValidate data-testid="invite-page">
        <div class="brand big">
          <span class="brand-mark" aria-hidden="true">
            ⟂
          </span>
          Fallacy&nbsp;Annotator
        </div>
        <h1 id="invite-title">Invitation</h1>
        {load.state === "loading" && <p>Loading…</p>}
        {load.state === "refused" && (
          <p class="form-error" role="alert" data-testid="invite-refused">
            {load.text}
          </p>
        )}
        {load.state === "ok" && (
          <>
            <p data-testid="invite-offer">
              You are invited to the project <strong>{load.offer.project}</strong> as {load.offer.role}.
            </p>
            {load.offer.signed_in_as !== null ? (
              <p class="muted small">{load.offer.member ? `You (${load.offer.signed_in_as}) already are a member; joining keeps your role.` : `You join as ${load.offer.signed_in_as}.`}</p>
            ) : (
              <>
                <p class="muted small">Choose your username and password: you will sign in with them.</p>
                <TextField id="invite-username" label="Username" path="username" value={form.username} onValue={(username) => setForm((f) => ({ ...f, username }))} messages={messagesFor(errors, "username")} autoComplete="username" testId="invite-username" />
                <TextField id="invite-password" label="Password" path="password" type="password" value={form.password} onValue={(password) => setForm((f) => ({ ...f, password }))} messages={messagesFor(errors, "password")} autoComplete="new-password" testId="invite-password" />
                <TextField id="invite-again" label="Password again" path="again" type="password" value={form.again} onValue={(again) => setForm((f) => ({ ...f, again }))} messages={messagesFor(errors, "again")} autoComplete="new-password" testId="invite-again" />
              </>
            )}
            {errors.general.length > 0 && (
              <p class="form-error" role="alert">
                {errors.general.join(" ")}
              </p>
            )}
            <button class="btn primary block" type="submit" disabled={busy} data-testid="invite-join">
              {busy ? "Joining…" : "Join the project"}
            </button>
          </>
        )}
      </form>
    </main>
  );
}
