import { describe, expect, it } from "vitest";
import { type ComboState, comboKey } from "./combobox";

const open = (active: number): ComboState => ({ open: true, active });
const moveTo = (active: number) => ({ kind: "move", state: open(active) });

describe("comboKey", () => {
  it("moves down and up through the options, around the ends", () => {
    expect(comboKey("ArrowDown", open(-1), 3)).toEqual(moveTo(0));
    expect(comboKey("ArrowDown", open(0), 3)).toEqual(moveTo(1));
    expect(comboKey("ArrowDown", open(2), 3)).toEqual(moveTo(0));
    expect(comboKey("ArrowUp", open(-1), 3)).toEqual(moveTo(2));
    expect(comboKey("ArrowUp", open(1), 3)).toEqual(moveTo(0));
    expect(comboKey("ArrowUp", open(0), 3)).toEqual(moveTo(2));
  });

  it("reopens a closed list on an arrow", () => {
    expect(comboKey("ArrowDown", { open: false, active: -1 }, 2)).toEqual(moveTo(0));
    expect(comboKey("ArrowUp", { open: false, active: -1 }, 2)).toEqual(moveTo(1));
  });

  it("chooses the highlighted option on Enter", () => {
    expect(comboKey("Enter", open(1), 3)).toEqual({ kind: "choose", index: 1 });
  });

  it("lets Enter submit the typed text when no option is highlighted or the list is closed", () => {
    expect(comboKey("Enter", open(-1), 3)).toEqual({ kind: "pass" });
    expect(comboKey("Enter", { open: false, active: 1 }, 3)).toEqual({ kind: "pass" });
    expect(comboKey("Enter", open(-1), 0)).toEqual({ kind: "pass" });
  });

  it("closes the list on Escape, and lets Escape through once it is closed", () => {
    expect(comboKey("Escape", open(0), 2)).toEqual({ kind: "close" });
    expect(comboKey("Escape", { open: false, active: -1 }, 2)).toEqual({ kind: "pass" });
  });

  it("leaves typing alone, and every key when nothing is offered", () => {
    expect(comboKey("a", open(0), 2)).toEqual({ kind: "pass" });
    expect(comboKey("ArrowDown", open(-1), 0)).toEqual({ kind: "pass" });
  });
});
