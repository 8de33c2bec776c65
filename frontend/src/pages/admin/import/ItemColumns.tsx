// After an items file (CSV or JSONL) is chosen: which of its columns holds the text, the
// id, the options and each answer key; a few sample rows below.

import { Select } from "../../../components/form";
import type { CsvInspection } from "../../../types";
import { ITEM_ROLES, type ItemMapping } from "../shared/itemForm";

export function ItemColumns({
  inspection,
  mapping,
  onMapping,
  messagesOf,
}: {
  inspection: CsvInspection;
  mapping: ItemMapping;
  onMapping: (m: ItemMapping) => void;
  messagesOf: (path: string) => string[];
}) {
  const options = inspection.columns.map((c) => ({ value: c, label: c }));
  const setRole = (role: string, column: string) => onMapping({ ...mapping, columns: { ...mapping.columns, [role]: column } });
  const toggleOption = (column: string, on: boolean) =>
    onMapping({ ...mapping, optionColumns: on ? inspection.columns.filter((c) => c === column || mapping.optionColumns.includes(c)) : mapping.optionColumns.filter((c) => c !== column) });
  const picked = new Set([...Object.values(mapping.columns).filter(Boolean), ...(mapping.optionsMode === "columns" ? mapping.optionColumns : [])]);
  return (
    <div class="csv-columns item-columns" data-testid="item-columns">
      <p class="muted small">
        {inspection.rows.toLocaleString("en")} record{inspection.rows === 1 ? "" : "s"}, {inspection.columns.length} columns. Map the columns the form needs; leave the others unmapped (they are kept with each item).
      </p>
      <div class="field-row wrap">
        {ITEM_ROLES.map(({ role, label, hint }) => (
          <Select
            key={role}
            id={`item-column-${role}`}
            label={role === "text" ? label : `${label} (optional)`}
            path={`columns.${role}`}
            value={mapping.columns[role] ?? ""}
            onValue={(c) => setRole(role, c)}
            options={options}
            placeholder={role === "text" ? "Choose…" : "None"}
            messages={messagesOf(`columns.${role}`)}
            hint={hint}
            testId={`item-column-${role}`}
          />
        ))}
      </div>
      <fieldset class="item-options">
        <legend>Options (multiple choice)</legend>
        <div class="field-row" role="radiogroup" aria-label="Where the options are">
          {(
            [
              ["none", "No options"],
              ["json", "One column holding them as JSON"],
              ["columns", "One column per option"],
            ] as const
          ).map(([mode, text]) => (
            <label key={mode} class="radio-option">
              <input type="radio" name="options-mode" value={mode} checked={mapping.optionsMode === mode} onChange={() => onMapping({ ...mapping, optionsMode: mode })} data-testid={`options-mode-${mode}`} /> {text}
            </label>
          ))}
        </div>
        {mapping.optionsMode === "json" && (
          <Select id="item-column-options" label="Options column" path="columns.options" value={mapping.columns.options ?? ""} onValue={(c) => setRole("options", c)} options={options} placeholder="Choose…" messages={messagesOf("columns.options")} testId="item-column-options" />
        )}
        {mapping.optionsMode === "columns" && (
          <div class="option-columns" data-testid="option-columns">
            {inspection.columns.map((c) => (
              <label key={c} class="check-option">
                <input type="checkbox" checked={mapping.optionColumns.includes(c)} onChange={(e) => toggleOption(c, (e.target as HTMLInputElement).checked)} /> {c}
              </label>
            ))}
            {messagesOf("columns.options").map((m, i) => (
              <p key={i} class="form-error">
                {m}
              </p>
            ))}
          </div>
        )}
      </fieldset>
      {inspection.sample.length > 0 && (
        <div class="table-wrap">
          <table class="table compact csv-sample" aria-label="Sample rows">
            <thead>
              <tr>
                {inspection.columns.map((c) => (
                  <th key={c} scope="col" class={picked.has(c) ? "picked" : undefined}>
                    {c}
                  </th>
                ))}
              </tr>
            </thead>
            <tbody>
              {inspection.sample.map((row, i) => (
                <tr key={i}>
                  {inspection.columns.map((c, j) => (
                    <td key={c} class={picked.has(c) ? "picked" : undefined}>
                      <span class="clamp-cell">{row[j] ?? ""}</span>
                    </td>
                  ))}
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </div>
  );
}
