// Invite someone who may have no account yet: a single-use link with a role (e-mailed when the
// server sends e-mail, shown here to copy either way), and the pending invitations to revoke.

import { useState } from "preact/hooks";
import { LoadErrorMessage } from "../../../components/PageMessage";
import { Select, TextField, isOk, sendJson, submitForm } from "../../../components/form";
import { useResource } from "../../../hooks/useResource";
import { type FormErrors, NO_ERRORS, messagesFor } from "../../../lib/formErrors";
import type { Invitation, NewInvitation } from "../../../types";
import { ROLE_OPTIONS } from "./roles";

const day = (iso: string) => new Date(iso).toLocaleDateString();

export function InvitePanel({ projectId }: { projectId: number }) {
  const url = `/api/projects/${projectId}/invitations/`;
  const pending = useResource<Invitation[]>(url);
  const [role, setRole] = useState("annotator");
  const [email, setEmail] = useState("");
  const [errors, setErrors] = useState<FormErrors>(NO_ERRORS);
  const [busy, setBusy] = useState(false);
  const [created, setCreated] = useState<NewInvitation | null>(null);
  const [copied, setCopied] = useState(false);
  const [revokeError, setRevokeError] = useState<string | null>(null);

  const submit = async (e: Event) => {
    e.preventDefault();
    if (busy) return;
    setCreated(null);
    setCopied(false);
    await submitForm(() => sendJson("POST", url, { role, email: email.trim() }), {
      setBusy,
      setErrors,
      offline: "The server cannot be reached; no invitation was created.",
      onOk: async (res) => {
        setCreated(res.data as NewInvitation);
        setEmail("");
        await pending.reload();
      },
    });
  };

  const copy = async () => {
    if (!created) return;
    try {
      await navigator.clipboard.writeText(created.link);
      setCopied(true);
    } catch {
      setCopied(false); // the link stays selectable in the field
    }
  };

  const revoke = async (invitation: Invitation) => {
    setRevokeError(null);
    try {
      const res = await sendJson("DELETE", `${url}${invitation.id}/`);
      if (!isOk(res) && res.status !== 404) setRevokeError(`Could not revoke it (${res.status}).`);
    } catch {
      setRevokeError("The server cannot be reached; the invitation was not revoked.");
    }
    if (created?.id === invitation.id) setCreated(null);
    await pending.reload();
  };

  return (
    <section class="panel admin-section" aria-labelledby="invite-title" data-testid="invite-panel">
      <h2 id="invite-title">Invite someone</h2>
      <p class="muted small">For someone who is not in your projects yet: they open the link, choose a username and password (or join with their account), and land in this project. A link works once.</p>
      <form onSubmit={submit} noValidate data-testid="invite-form">
        {errors.general.length > 0 && (
          <p class="form-error" role="alert">
            {errors.general.join(" ")}
          </p>
        )}
        <div class="field-row">
          <TextField id="invite-email" label="Send the link to (e-mail, optional)" path="email" type="email" class="grow" value={email} onValue={setEmail} messages={messagesFor(errors, "email")} autoComplete="off" testId="invite-email" />
          <Select id="invite-role" label="Role when joining" path="role" value={role} onValue={setRole} options={ROLE_OPTIONS} messages={messagesFor(errors, "role")} testId="invite-role" />
          <div class="field field-button">
            <span aria-hidden="true">&nbsp;</span>
            <button type="submit" class="btn primary" disabled={busy} data-testid="invite-submit">
              {busy ? "Creating…" : "Create invitation"}
            </button>
          </div>
        </div>
      </form>
      {created && (
        <div class="note" role="status" data-testid="invite-created">
          <p>
            {created.sent ? `The link was e-mailed to ${created.email}. ` : ""}
            Share this link with the person you invite (shown only now; it expires on {day(created.expires_at)}):
          </p>
          <div class="invite-link-row">
            <input readOnly value={created.link} aria-label="Invitation link" data-testid="invite-link" onFocus={(e) => (e.target as HTMLInputElement).select()} />
            <button type="button" class="btn small" onClick={() => void copy()} data-testid="invite-copy">
              {copied ? "Copied" : "Copy"}
            </button>
          </div>
        </div>
      )}
      <h3 class="invitations-title">Pending invitations</h3>
      {revokeError && (
        <p class="form-error" role="alert">
          {revokeError}
        </p>
      )}
      {pending.error && !pending.data ? (
        <LoadErrorMessage error={pending.error} onRetry={() => void pending.reload()} />
      ) : !pending.data ? null : pending.data.length === 0 ? (
        <p class="empty small" data-testid="invitations-empty">
          None.
        </p>
      ) : (
        <ul class="invitation-list" data-testid="invitations">
          {pending.data.map((inv) => (
            <li key={inv.id} data-testid="invitation-row">
              <span>
                {inv.email || "Link"} · {inv.role} · expires {day(inv.expires_at)}
                {inv.created_by ? ` · by ${inv.created_by}` : ""}
              </span>{" "}
              <button type="button" class="btn ghost small" onClick={() => void revoke(inv)} data-testid="invitation-revoke">
                Revoke
              </button>
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}
