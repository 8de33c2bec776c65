// The project's members: role changed inline, removal after a confirmation.

import { useState } from "preact/hooks";
import { ConfirmDialog, isOk, sendJson } from "../../../components/form";
import { CountCells, CountHeaders } from "../../../components/table";
import { toFormErrors } from "../../../lib/formErrors";
import type { Member } from "../../../types";
import { ROLE_OPTIONS } from "./roles";

const firstMessage = (status: number, data: unknown) => {
  const e = toFormErrors(data, status);
  return [...e.general, ...Object.values(e.fields).flat()].join(" ");
};

export function MembersTable({ projectId, members, meId, onChanged }: { projectId: number; members: Member[]; meId: number; onChanged: () => Promise<void> }) {
  const [busy, setBusy] = useState<number | null>(null);
  const [rowError, setRowError] = useState<{ id: number; text: string } | null>(null);
  const [removing, setRemoving] = useState<Member | null>(null);

  const changeRole = async (m: Member, role: string) => {
    setBusy(m.id);
    setRowError(null);
    try {
      const res = await sendJson("PATCH", `/api/projects/${projectId}/members/${m.id}/`, { role });
      if (!isOk(res)) setRowError({ id: m.id, text: firstMessage(res.status, res.data) });
      await onChanged();
    } catch {
      setRowError({ id: m.id, text: "The server cannot be reached; the role did not change." });
    } finally {
      setBusy(null);
    }
  };

  const remove = async () => {
    const m = removing;
    if (!m) return;
    setBusy(m.id);
    try {
      const res = await sendJson("DELETE", `/api/projects/${projectId}/members/${m.id}/`);
      if (!isOk(res)) setRowError({ id: m.id, text: firstMessage(res.status, res.data) });
      else setRowError(null);
      await onChanged();
    } catch {
      setRowError({ id: m.id, text: "The server cannot be reached; nobody was removed." });
    } finally {
      setBusy(null);
      setRemoving(null);
    }
  };

  if (!members.length) return <p class="empty">No members yet: add someone below.</p>;
  // E-mail addresses come only for oneself (and for every member to a superuser).
  const emails = members.some((m) => m.user.email && m.user.id !== meId);
  return (
    <>
      <div class="table-wrap">
        <table class="table members-table" data-testid="members-table">
          <thead>
            <tr>
              <th scope="col">User</th>
              {emails && <th scope="col">E-mail</th>}
              <th scope="col">Role</th>
              <CountHeaders />
              <th scope="col">
                <span class="sr-only">Actions</span>
              </th>
            </tr>
          </thead>
          <tbody>
            {members.map((m) => (
              <tr key={m.id} data-testid="member-row" data-username={m.user.username}>
                <th scope="row">
                  {m.user.username}
                  {m.user.id === meId && <span class="muted small"> (you)</span>}
                  {rowError?.id === m.id && (
                    <p class="field-error" role="alert">
                      {rowError.text}
                    </p>
                  )}
                </th>
                {emails && <td class="muted">{m.user.email || "—"}</td>}
                <td>
                  <select class="inline-select" aria-label={`Role of ${m.user.username}`} value={m.role} disabled={busy === m.id} onChange={(e) => void changeRole(m, (e.target as HTMLSelectElement).value)} data-testid="member-role">
                    {ROLE_OPTIONS.map((o) => (
                      <option key={o.value} value={o.value}>
                        {o.label}
                      </option>
                    ))}
                  </select>
                </td>
                <CountCells counts={m} />
                <td class="right">
                  <button type="button" class="btn ghost small" disabled={busy === m.id} onClick={() => setRemoving(m)} aria-label={`Remove ${m.user.username}`} data-testid="member-remove">
                    Remove
                  </button>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      <ConfirmDialog open={!!removing} title={`Remove ${removing?.user.username ?? ""} from the project?`} confirmLabel="Remove" danger busy={busy !== null} onConfirm={() => void remove()} onCancel={() => setRemoving(null)} testId="remove-dialog">
        <p>Their annotations stay in the project, still attributed to them. Documents assigned to them that they have not started are unassigned.</p>
      </ConfirmDialog>
    </>
  );
}
