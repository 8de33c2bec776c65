import type { ComponentChildren } from "preact";

// The per-annotator counts (assigned, in progress, submitted) as shown by the assignment,
// progress and members tables: one set of headers and cells.

export interface Counts {
  assigned: number;
  in_progress: number;
  submitted: number;
}

/** The three right-aligned count headers: Assigned, In progress, Submitted. */
export function CountHeaders() {
  return (
    <>
      <th scope="col" class="right">
        Assigned
      </th>
      <th scope="col" class="right">
        In progress
      </th>
      <th scope="col" class="right">
        Submitted
      </th>
    </>
  );
}

/** The header of a per-annotator table: Annotator, the counts, Last active. */
export function CountsHead() {
  return (
    <thead>
      <tr>
        <th scope="col">Annotator</th>
        <CountHeaders />
        <th scope="col">Last active</th>
      </tr>
    </thead>
  );
}

/** The cells under `CountHeaders`; `assigned` replaces the plain number in the first one. */
export function CountCells({ counts, assigned }: { counts: Counts; assigned?: ComponentChildren }) {
  return (
    <>
      <td class="right tabular">{assigned ?? counts.assigned}</td>
      <td class="right tabular">{counts.in_progress}</td>
      <td class="right tabular">{counts.submitted}</td>
    </>
  );
}
