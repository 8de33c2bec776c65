import { describe, expect, it } from "vitest";
import { docKeyAction, docNavKey, type KeyContext, type KeyPress } from "./keys";

const press = (key: string, mods: Partial<KeyPress> = {}): KeyPress => ({ key, shiftKey: false, ctrlKey: false, metaKey: false, altKey: false, ...mods });
const idle: KeyContext = { active: false, readOnly: false, picker: false };
const open: KeyContext = { ...idle, active: true };

describe("document pane keys", () => {
  it("moves and extends the selection", () => {
    expect(docKeyAction(press("j"), idle)).toEqual({ kind: "move", delta: 1, extend: false });
    expect(docKeyAction(press("ArrowDown", { shiftKey: true }), idle)).toEqual({ kind: "move", delta: 1, extend: true });
    expect(docKeyAction(press("ArrowLeft"), idle)).toEqual({ kind: "move", delta: -1, extend: false });
    expect(docKeyAction(press("k"), idle)).toEqual({ kind: "move", delta: -1, extend: false });
    expect(docKeyAction(press("End", { shiftKey: true }), idle)).toEqual({ kind: "jump", to: "last", extend: true });
    expect(docKeyAction(press("Home"), idle)).toEqual({ kind: "jump", to: "first", extend: false });
  });

  it("leaves shortcuts with modifiers to the browser", () => {
    expect(docKeyAction(press("j", { ctrlKey: true }), idle)).toBeNull();
    expect(docKeyAction(press("a", { metaKey: true }), idle)).toBeNull();
    expect(docKeyAction(press("ArrowDown", { altKey: true }), idle)).toBeNull();
    expect(docKeyAction(press("x"), idle)).toBeNull();
  });

  it("labels, cycles, closes and toggles the guidelines", () => {
    expect(docKeyAction(press("Enter"), idle)).toEqual({ kind: "label" });
    expect(docKeyAction(press("a"), idle)).toEqual({ kind: "label" });
    expect(docKeyAction(press("e"), idle)).toEqual({ kind: "cycle" });
    expect(docKeyAction(press("Escape"), open)).toEqual({ kind: "escape" });
    expect(docKeyAction(press("?"), idle)).toEqual({ kind: "guide" });
    expect(docKeyAction(press("g"), idle)).toEqual({ kind: "guide" });
  });

  it("edits, moves and deletes only an open span, and never read-only", () => {
    expect(docKeyAction(press("l"), idle)).toBeNull();
    expect(docKeyAction(press("L"), open)).toEqual({ kind: "editLabels" });
    expect(docKeyAction(press("l"), { ...open, readOnly: true })).toBeNull();
    expect(docKeyAction(press("m"), open)).toEqual({ kind: "moveSpan" });
    expect(docKeyAction(press("m"), idle)).toBeNull();
    expect(docKeyAction(press("Delete"), open)).toEqual({ kind: "delete" });
    expect(docKeyAction(press("Delete"), { ...open, picker: true })).toBeNull();
    expect(docKeyAction(press("Delete"), { ...open, readOnly: true })).toBeNull();
  });

  it("hands the suggestion keys on", () => {
    for (const key of ["s", "y", "Y", "n"]) expect(docKeyAction(press(key, { shiftKey: key === "Y" }), idle)).toEqual({ kind: "suggestion", key });
  });
});

describe("previous / next document keys", () => {
  const free = { typing: false, dialog: false };
  it("maps [ and ] to the previous and next document", () => {
    expect(docNavKey(press("["), free)).toBe(-1);
    expect(docNavKey(press("]"), free)).toBe(1);
    expect(docNavKey(press("n"), free)).toBeNull();
  });

  it("never fires while typing, in a dialog or with a modifier", () => {
    expect(docNavKey(press("]"), { typing: true, dialog: false })).toBeNull();
    expect(docNavKey(press("["), { typing: false, dialog: true })).toBeNull();
    expect(docNavKey(press("]", { ctrlKey: true }), free)).toBeNull();
    expect(docNavKey(press("[", { altKey: true }), free)).toBeNull();
  });
});
