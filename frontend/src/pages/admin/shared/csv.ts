// Guesses for the CSV columns of an import (the admin can change them).

import type { CsvInspection } from "../../../types";

/** A likely text column: "text", else the column whose sample values are longest. */
export function guessTextColumn(inspection: CsvInspection): string {
  const named = inspection.columns.find((c) => /^(text|body|content|sentence)$/i.test(c.trim()));
  if (named) return named;
  let best = "";
  let bestLen = -1;
  inspection.columns.forEach((c, j) => {
    const len = inspection.sample.reduce((s, row) => s + String(row[j] ?? "").length, 0);
    if (len > bestLen) [best, bestLen] = [c, len];
  });
  return best;
}

/** A likely id column: "id", "external_id" or "doc_id", else none. */
export function guessIdColumn(inspection: CsvInspection): string {
  return inspection.columns.find((c) => /^(id|external_id|doc_id|document_id)$/i.test(c.trim())) ?? "";
}
