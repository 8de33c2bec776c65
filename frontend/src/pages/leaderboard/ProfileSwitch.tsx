import type { Profile } from "../../types";

export const PROFILES: { id: Profile; name: string; about: string }[] = [
  { id: "paper", name: "paper", about: "the metric as the MAFALDA paper defines it" },
  { id: "mafalda-2024", name: "mafalda-2024", about: "what the published scorer computed (compare with published tables)" },
];

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
