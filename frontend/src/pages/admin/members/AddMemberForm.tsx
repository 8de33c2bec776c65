// Add an existing user (username or e-mail) with a role; adding a member again updates the role.

import { useEffect, useState } from "preact/hooks";
import { Select, TextField, sendJson, submitForm } from "../../../components/form";
import { type FormErrors, NO_ERRORS, messagesFor } from "../../../lib/formErrors";
import type { Member } from "../../../types";
import { ROLE_OPTIONS } from "./roles";

export function AddMemberForm({ projectId, prefill, onAdded }: { projectId: number; prefill: string; onAdded: (m: Member, updated: boolean) => Promise<void> }) {
  const [user, setUser] = useState("");
  const [role, setRole] = useState("annotator");
  const [errors, setErrors] = useState<FormErrors>(NO_ERRORS);
  const [busy, setBusy] = useState(false);
  const [done, setDone] = useState<string | null>(null);

  useEffect(() => {
    if (prefill) setUser(prefill);
  }, [prefill]);

  const submit = async (e: Event) => {
    e.preventDefault();
    if (busy) return;
    if (!user.trim()) return setErrors({ fields: { user: ["A username or an e-mail address."] }, general: [] });
    setDone(null);
    await submitForm(() => sendJson("POST", `/api/projects/${projectId}/members/`, { user: user.trim(), role }), {
      setBusy,
      setErrors,
      offline: "The server cannot be reached; nobody was added.",
      onOk: async (res) => {
        const m = res.data as Member;
        setUser("");
        setDone(res.status === 200 ? `${m.user.username} already was a member: now ${m.role}.` : `Added ${m.user.username} as ${m.role}.`);
        await onAdded(m, res.status === 200);
      },
    });
  };

  return (
    <form class="panel admin-section" onSubmit={submit} noValidate data-testid="add-member-form">
      <h2>Add a member</h2>
      {errors.general.length > 0 && (
        <p class="form-error" role="alert">
          {errors.general.join(" ")}
        </p>
      )}
      <div class="field-row">
        <TextField id="member-user" label="Username or e-mail" path="user" class="grow" value={user} onValue={setUser} messages={messagesFor(errors, "user")} autoComplete="off" testId="member-user" />
        <Select id="member-role" label="Role" path="role" value={role} onValue={setRole} options={ROLE_OPTIONS} messages={messagesFor(errors, "role")} testId="member-role-new" />
        <div class="field field-button">
          <span aria-hidden="true">&nbsp;</span>
          <button type="submit" class="btn primary" disabled={busy} data-testid="add-member">
            {busy ? "Adding…" : "Add member"}
          </button>
        </div>
      </div>
      {done && (
        <p class="note" role="status" data-testid="member-added">
          {done}
        </p>
      )}
    </form>
  );
}
