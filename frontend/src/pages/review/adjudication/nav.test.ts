import { describe, expect, it } from "vitest";
import { docNavKey } from "../../annotate/keys";
import { adjNavKey, boundaryKey, positionText } from "./nav";

const press = (key: string, mods: Partial<{ ctrlKey: boolean; metaKey: boolean; altKey: boolean; shiftKey: boolean }> = {}) => ({
  key,
  ctrlKey: false,
  metaKey: false,
  altKey: false,
  shiftKey: false,
  ...mods,
});
const free = { typing: false, dialog: false };

describe("adjudication previous / next keys", () => {
  it("reads [ and ] as previous and next, as the annotation and review pages do", () => {
    expect(adjNavKey(press("["), free)).toBe(-1);
    expect(adjNavKey(press("]"), free)).toBe(1);
    for (const key of ["[", "]", "<", ">", "{", "}", "j"]) expect(adjNavKey(press(key), free)).toBe(docNavKey(press(key), free));
  });
  it("leaves the boundary keys and the other shortcuts to the page", () => {
    for (const key of ["<", ">", ",", ".", "{", "}", "j", "k", "a", "m", "n", "?", "Delete", "Escape"]) expect(adjNavKey(press(key), free)).toBeNull();
  });
  it("does nothing while typing, with a dialog open, or with a modifier", () => {
    expect(adjNavKey(press("]"), { typing: true, dialog: false })).toBeNull();
    expect(adjNavKey(press("]"), { typing: false, dialog: true })).toBeNull();
    expect(adjNavKey(press("]", { ctrlKey: true }), free)).toBeNull();
    expect(adjNavKey(press("[", { altKey: true }), free)).toBeNull();
  });
  it("shows the position in the queue, or a dash outside it", () => {
    expect(positionText(2, 5)).toBe("2 / 5");
    expect(positionText(null, 5)).toBe("– / 5");
  });
});

describe("gold span boundary keys", () => {
  it("move the start with < and , and the end with > and .", () => {
    expect(boundaryKey(press("<"))).toEqual({ edge: "start", delta: -1 });
    expect(boundaryKey(press(","))).toEqual({ edge: "start", delta: 1 });
    expect(boundaryKey(press(">"))).toEqual({ edge: "end", delta: 1 });
    expect(boundaryKey(press("."))).toEqual({ edge: "end", delta: -1 });
  });
  it("never take the document keys", () => {
    for (const key of ["[", "]", "{", "}"]) expect(boundaryKey(press(key))).toBeNull();
    expect(boundaryKey(press("<", { ctrlKey: true }))).toBeNull();
  });
});
