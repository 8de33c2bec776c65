// After a CSV file is chosen: its columns (text and optional id) and a few sample rows.

import { Select } from "../../../components/form";
import type { CsvInspection } from "../../../types";

export function CsvColumns({
  inspection,
  textColumn,
  idColumn,
  onText,
  onId,
  messages,
}: {
  inspection: CsvInspection;
  textColumn: string;
  idColumn: string;
  onText: (c: string) => void;
  onId: (c: string) => void;
  messages: { text: string[]; id: string[] };
}) {
  const options = inspection.columns.map((c) => ({ value: c, label: c }));
  return (
    <div class="csv-columns" data-testid="csv-columns">
      <p class="muted small">
        {inspection.rows.toLocaleString("en")} data row{inspection.rows === 1 ? "" : "s"}, {inspection.columns.length} columns.
      </p>
      <div class="field-row">
        <Select id="csv-text-column" label="Text column" path="text_column" value={textColumn} onValue={onText} options={options} placeholder="Choose…" messages={messages.text} testId="csv-text-column" />
        <Select id="csv-id-column" label="Id column (optional)" path="id_column" value={idColumn} onValue={onId} options={options} placeholder="None: number the rows" messages={messages.id} testId="csv-id-column" />
      </div>
      {inspection.sample.length > 0 && (
        <div class="table-wrap">
          <table class="table compact csv-sample" aria-label="Sample rows">
            <thead>
              <tr>
                {inspection.columns.map((c) => (
                  <th key={c} scope="col" class={c === textColumn ? "picked" : c === idColumn ? "picked-id" : undefined}>
                    {c}
                  </th>
                ))}
              </tr>
            </thead>
            <tbody>
              {inspection.sample.map((row, i) => (
                <tr key={i}>
                  {inspection.columns.map((c, j) => (
                    <td key={c} class={c === textColumn ? "picked" : undefined}>
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
