import type { SwitchOption } from "./view";

const STATUS_TEXT: Record<SwitchOption["status"], string> = {
  in_progress: "in progress",
  submitted: "submitted",
  not_started: "not started",
};

/** Reviewers and admins: whose annotation of this document is shown. */
export function AnnotatorSwitch({
  options,
  value,
  onChange,
}: {
  options: SwitchOption[];
  value: number | null;
  onChange(id: number): void;
}) {
  if (!options.length) return null;
  return (
    <label class="annotator-switch">
      <span class="muted small">Annotation by</span>
      <select
        data-testid="annotator-switch"
        value={value === null ? "" : String(value)}
        onChange={(e) => onChange(Number((e.target as HTMLSelectElement).value))}
      >
        {value === null && <option value="">—</option>}
        {options.map((o) => (
          <option key={o.id} value={String(o.id)} data-username={o.username}>
            {o.mine ? `${o.username} (you)` : o.username} · {STATUS_TEXT[o.status]}
          </option>
        ))}
      </select>
    </label>
  );
}
