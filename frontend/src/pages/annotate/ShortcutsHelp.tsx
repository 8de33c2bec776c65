import { Fragment } from "preact";

const SHORTCUTS: [string[], string][] = [
  [["↑", "↓"], "Move between sentences"],
  [["Shift", "+", "↑", "/", "↓"], "Extend the selection"],
  [["Enter"], "Label the selection"],
  [["1", "–", "9", ",", "0"], "In the picker: toggle a label / “no fallacy”"],
  [["E"], "Edit a span on this sentence (repeat to cycle)"],
  [["Del"], "Delete the open span"],
  [["Ctrl", "+", "Z"], "Undo the last change"],
  [["Esc"], "Back to the text / close"],
  [["G"], "Show or hide the guidelines"],
  [["[", "/", "]"], "Previous / next document of your queue"],
];
/** Shown when the document has models' suggestions (assisted projects). */
export const SUGGESTION_SHORTCUTS: [string[], string][] = [
  [["S"], "Go to the next suggestion to decide"],
  [["Y"], "Accept the focused suggestion (it becomes your span)"],
  [["N"], "Reject the focused suggestion"],
  [["Shift", "+", "Y"], "Accept every suggestion on this sentence"],
];
const GLUE = new Set(["+", "/", "–", ","]);

export function ShortcutsHelp({ open, suggestions = false }: { open: boolean; suggestions?: boolean }) {
  const list = suggestions ? [...SHORTCUTS, ...SUGGESTION_SHORTCUTS] : SHORTCUTS;
  return (
    <details class="shortcuts" open={open}>
      <summary>Keyboard shortcuts</summary>
      <dl>
        {list.map(([keys, what]) => (
          <Fragment key={what}>
            <dt>
              {keys.map((k, i) => (GLUE.has(k) ? <span key={i}>{k === "," ? ", " : k}</span> : <Fragment key={i}>{i > 0 && !GLUE.has(keys[i - 1]) && " "}<kbd>{k}</kbd></Fragment>))}
            </dt>
            <dd>{what}</dd>
          </Fragment>
        ))}
      </dl>
    </details>
  );
}
