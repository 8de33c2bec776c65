// The document pane's keyboard: which key does what, given what the page shows. No DOM:
// the Workspace runs the action (and only then takes the key from the browser).

export type SuggestionKey = "s" | "y" | "Y" | "n";

export type DocKeyAction =
  | { kind: "move"; delta: 1 | -1; extend: boolean }
  | { kind: "jump"; to: "first" | "last"; extend: boolean }
  /** Enter / A: select the first sentence, or label the selection. */
  | { kind: "label" }
  /** E: the next span on the focused sentence. */
  | { kind: "cycle" }
  | { kind: "editLabels" }
  | { kind: "moveSpan" }
  | { kind: "delete" }
  /** Escape: close the picker, else the open span, else clear the selection. */
  | { kind: "escape" }
  | { kind: "guide" }
  /** S (next suggestion), Y / N (accept / reject it), Shift+Y (accept the sentence's). */
  | { kind: "suggestion"; key: SuggestionKey };

export interface KeyPress {
  key: string;
  shiftKey: boolean;
  ctrlKey: boolean;
  metaKey: boolean;
  altKey: boolean;
}

export interface KeyContext {
  /** A span is open in the sidebar. */
  active: boolean;
  readOnly: boolean;
  /** The label picker is open. */
  picker: boolean;
}

/** The action of a key in the document pane; null: the key is not the pane's. */
export function docKeyAction(e: KeyPress, { active, readOnly, picker }: KeyContext): DocKeyAction | null {
  if (e.ctrlKey || e.metaKey || e.altKey) return null;
  const k = e.key;
  const extend = e.shiftKey;
  if (k === "ArrowDown" || k === "ArrowRight" || (k === "j" && !e.shiftKey)) return { kind: "move", delta: 1, extend };
  if (k === "ArrowUp" || k === "ArrowLeft" || (k === "k" && !e.shiftKey)) return { kind: "move", delta: -1, extend };
  if (k === "Home") return { kind: "jump", to: "first", extend };
  if (k === "End") return { kind: "jump", to: "last", extend };
  if (k === "Enter" || k === "a") return { kind: "label" };
  if (k === "e") return { kind: "cycle" };
  if ((k === "l" || k === "L") && active && !readOnly) return { kind: "editLabels" };
  if (k === "m" && active) return { kind: "moveSpan" };
  if (k === "Delete" && active && !readOnly && !picker) return { kind: "delete" };
  if (k === "Escape") return { kind: "escape" };
  if (k === "g" || k === "?") return { kind: "guide" };
  if (k === "s" || k === "y" || k === "Y" || k === "n") return { kind: "suggestion", key: k };
  return null;
}

/**
 * The previous / next document keys, "[" and "]", anywhere on the document page except while
 * typing in a field (`typing`) or with a dialog open; -1, 1, or null (not ours).
 */
export function docNavKey(e: KeyPress, { typing, dialog }: { typing: boolean; dialog: boolean }): -1 | 1 | null {
  if (typing || dialog || e.ctrlKey || e.metaKey || e.altKey) return null;
  if (e.key === "[") return -1;
  if (e.key === "]") return 1;
  return null;
}
