// A Label Studio file's annotators (read before uploading) with a choice for each, and
// "texts only". Stateless: the import form keeps the choices.

import type { FormErrors } from "../../../lib/formErrors";
import { messagesFor } from "../../../lib/formErrors";
import { ACTIONS, type AnnotatorAction, type AnnotatorChoice, type LsPreview, defaultText } from "../shared/labelStudio";

export interface LabelStudioChoicesProps {
  preview: LsPreview;
  textsOnly: boolean;
  onTextsOnly: (on: boolean) => void;
  choices: Record<string, AnnotatorChoice>;
  onChoice: (key: string, choice: AnnotatorChoice) => void;
  errors: FormErrors;
}

const valueOf = (e: Event) => (e.target as HTMLInputElement).value;

export function LabelStudioChoices({ preview, textsOnly, onTextsOnly, choices, onChoice, errors }: LabelStudioChoicesProps) {
  const count = preview.annotators.length;
  return (
    <fieldset class="ls-choices" data-testid="ls-choices">
      <legend>
        {preview.tasks} tasks, {count} {count === 1 ? "annotator" : "annotators"}
        {preview.predictions > 0 && `, ${preview.predictions} predictions`}
      </legend>
      <label class="checkbox">
        <input type="checkbox" checked={textsOnly} onChange={(e) => onTextsOnly((e.target as HTMLInputElement).checked)} data-testid="ls-texts-only" />
        Texts only: import the tasks' texts as documents, no annotations, no predictions
      </label>
      {!textsOnly && count > 0 && (
        <table class="table ls-annotators" data-testid="ls-annotators">
          <thead>
            <tr>
              <th>Annotator in Label Studio</th>
              <th>Annotations</th>
              <th>Regions</th>
              <th>Their work goes to</th>
            </tr>
          </thead>
          <tbody>
            {preview.annotators.map((a) => {
              const c = choices[a.key] ?? { action: "auto", user: "", email: a.email };
              const set = (over: Partial<AnnotatorChoice>) => onChoice(a.key, { ...c, ...over });
              const msgs = messagesFor(errors, `annotators.${a.key}`);
              return (
                <tr key={a.key} data-testid={`ls-annotator-${a.key}`}>
                  <td>{a.shown}</td>
                  <td>{a.annotations}</td>
                  <td>{a.regions}</td>
                  <td>
                    <select aria-label={`Choice for ${a.shown}`} value={c.action} onChange={(e) => set({ action: valueOf(e) as AnnotatorAction })} data-testid={`ls-action-${a.key}`}>
                      {ACTIONS.map((o) => (
                        <option key={o.value} value={o.value}>
                          {o.value === "auto" ? `Default: ${defaultText(a)}` : o.label}
                        </option>
                      ))}
                    </select>
                    {c.action === "member" && (
                      <select aria-label={`Member for ${a.shown}`} value={c.user} onChange={(e) => set({ user: valueOf(e) })} data-testid={`ls-member-${a.key}`}>
                        <option value="">Choose a member…</option>
                        {preview.members.map((m) => (
                          <option key={m} value={m}>
                            {m}
                          </option>
                        ))}
                      </select>
                    )}
                    {c.action === "invite" && (
                      <input type="email" aria-label={`E-mail to invite for ${a.shown}`} value={c.email} placeholder="name@example.org" onInput={(e) => set({ email: valueOf(e) })} data-testid={`ls-invite-${a.key}`} />
                    )}
                    {msgs.length > 0 && (
                      <p class="form-error" role="alert">
                        {msgs.join(" ")}
                      </p>
                    )}
                  </td>
                </tr>
              );
            })}
          </tbody>
        </table>
      )}
      {!textsOnly && <p class="muted small">An invited person gets a link; their work waits on a placeholder account and becomes theirs when they accept.</p>}
    </fieldset>
  );
}
