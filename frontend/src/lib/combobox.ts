// Keyboard handling of a text field offering a list of suggestions (the ARIA combobox
// pattern): arrows move through the options, Enter takes the highlighted one, Escape closes.

export interface ComboState {
  /** The highlighted option's index; -1 when none is. */
  active: number;
  /** Whether the list is shown. */
  open: boolean;
}

export type ComboAction =
  | { kind: "move"; state: ComboState }
  | { kind: "choose"; index: number }
  | { kind: "close" }
  /** Not a key the list handles: the field's own behaviour (typing, submitting) goes on. */
  | { kind: "pass" };

/** What a key pressed in the field does, given the number of options offered. */
export function comboKey(key: string, state: ComboState, count: number): ComboAction {
  if (count === 0) return { kind: "pass" };
  if (key === "ArrowDown" || key === "ArrowUp") {
    if (!state.open) return { kind: "move", state: { open: true, active: key === "ArrowDown" ? 0 : count - 1 } };
    const step = key === "ArrowDown" ? 1 : -1;
    // from none, down goes to the first and up to the last; past either end, around
    const from = state.active < 0 ? (step > 0 ? -1 : count) : state.active;
    return { kind: "move", state: { open: true, active: (from + step + count) % count } };
  }
  if (key === "Enter" && state.open && state.active >= 0 && state.active < count) return { kind: "choose", index: state.active };
  if (key === "Escape" && state.open) return { kind: "close" };
  return { kind: "pass" };
}
