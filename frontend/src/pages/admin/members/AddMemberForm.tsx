// Add a user one already shares a project with (username or e-mail) with a role; adding a
// member again updates the role. Anyone else is invited (InvitePanel).
// As one types, the usernames that start so are offered (among the accounts the admin already
// sees: GET /api/projects/ID/members/suggestions/), as a listbox the arrows move through
// (the ARIA combobox pattern: Enter takes the highlighted name, Escape closes the list).

import { useEffect, useState } from "preact/hooks";
import { get } from "../../../api";
import { Select, TextField, sendJson, submitForm } from "../../../components/form";
import { useDebounced } from "../../../hooks/useDebounced";
import { comboKey } from "../../../lib/combobox";
import { type FormErrors, NO_ERRORS, messagesFor } from "../../../lib/formErrors";
import type { Member } from "../../../types";
import { ROLE_OPTIONS } from "./roles";

export function AddMemberForm({ projectId, prefill, onAdded }: { projectId: number; prefill: string; onAdded: (m: Member, updated: boolean) => Promise<void> }) {
  const [user, setUser] = useState("");
  const [role, setRole] = useState("annotator");
  const [errors, setErrors] = useState<FormErrors>(NO_ERRORS);
  const [busy, setBusy] = useState(false);
  const [done, setDone] = useState<string | null>(null);
  const suggestions = useUsernameSuggestions(projectId, user);
  const [list, setList] = useState({ open: true, active: -1 });
  const shown = list.open && suggestions.length > 0;
  const typed = (v: string) => {
    setUser(v);
    setList({ open: true, active: -1 });
  };
  const choose = (name: string) => {
    setUser(name);
    setList({ open: true, active: -1 });
  };
  const onKeyDown = (e: KeyboardEvent) => {
    const action = comboKey(e.key, { open: shown, active: shown ? list.active : -1 }, suggestions.length);
    if (action.kind === "pass") return;
    e.preventDefault();
    if (action.kind === "move") setList(action.state);
    else if (action.kind === "choose") choose(suggestions[action.index]);
    else setList({ open: false, active: -1 });
  };

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
        <TextField
          id="member-user"
          label="Username or e-mail"
          path="user"
          class="grow"
          value={user}
          onValue={typed}
          messages={messagesFor(errors, "user")}
          autoComplete="off"
          required
          testId="member-user"
          inputAttrs={{
            role: "combobox",
            "aria-autocomplete": "list",
            "aria-expanded": shown,
            "aria-controls": "member-suggestions",
            "aria-activedescendant": shown && list.active >= 0 ? `member-suggestion-${list.active}` : undefined,
            onKeyDown,
          }}
        />
        <Select id="member-role" label="Role" path="role" value={role} onValue={setRole} options={ROLE_OPTIONS} messages={messagesFor(errors, "role")} testId="member-role-new" />
        <div class="field field-button">
          <span aria-hidden="true">&nbsp;</span>
          <button type="submit" class="btn primary" disabled={busy} data-testid="add-member">
            {busy ? "Adding…" : "Add member"}
          </button>
        </div>
      </div>
      {shown && (
        <div class="suggest-users">
          <span class="muted small" id="member-suggestions-label">
            Matching users:
          </span>
          <ul id="member-suggestions" role="listbox" aria-labelledby="member-suggestions-label" data-testid="member-suggestions">
            {suggestions.map((name, i) => (
              <li
                key={name}
                id={`member-suggestion-${i}`}
                role="option"
                aria-selected={i === list.active}
                class={`btn ghost small${i === list.active ? " active" : ""}`}
                // mousedown would move the focus out of the field
                onMouseDown={(e) => e.preventDefault()}
                onClick={() => choose(name)}
              >
                {name}
              </li>
            ))}
          </ul>
        </div>
      )}
      {done && (
        <p class="note" role="status" data-testid="member-added">
          {done}
        </p>
      )}
    </form>
  );
}

/** Usernames starting with what is typed (2 characters or more), once typing pauses; none once
 * the field holds one of them exactly. */
function useUsernameSuggestions(projectId: number, typed: string): string[] {
  const prefix = useDebounced(typed.trim(), 200);
  const [found, setFound] = useState<{ prefix: string; usernames: string[] }>({ prefix: "", usernames: [] });
  useEffect(() => {
    if (prefix.length < 2 || prefix.includes("@")) return;
    let cancelled = false;
    get<{ usernames: string[] }>(`/api/projects/${projectId}/members/suggestions/?q=${encodeURIComponent(prefix)}`)
      .then((r) => !cancelled && setFound({ prefix, usernames: r.usernames }))
      .catch(() => undefined); // suggestions are a help: typing the name still works
    return () => {
      cancelled = true;
    };
  }, [projectId, prefix]);
  const now = typed.trim().toLowerCase();
  if (now.length < 2 || !now.startsWith(found.prefix.toLowerCase()) || !found.prefix) return [];
  const matching = found.usernames.filter((u) => u.toLowerCase().startsWith(now));
  return matching.length === 1 && matching[0].toLowerCase() === now ? [] : matching;
}
