import { metricHelp } from "../../lib/metricHelp";
import type { Profile } from "../../types";

/** The scoring profiles of a gold version's leaderboard; `about` is lib/metricHelp's line. */
export const PROFILES: { id: Profile; name: string; about: string }[] = (["paper", "mafalda-2024"] as const).map((id) => ({
  id,
  name: id,
  about: metricHelp(id)?.text ?? "",
}));

export function ProfileSwitch({ value, onChange }: { value: Profile; onChange: (p: Profile) => void }) {
  return (
    <div class="segmented" role="group" aria-label="Scoring profile" data-testid="profile-switch">
      {PROFILES.map((p) => (
        <button
          key={p.id}
          type="button"
          class={`btn small${value === p.id ? " on" : ""}`}
          aria-pressed={value === p.id}
          onClick={() => onChange(p.id)}
          data-profile={p.id}
          title={p.about}
        >
          {p.name}
        </button>
      ))}
    </div>
  );
}
