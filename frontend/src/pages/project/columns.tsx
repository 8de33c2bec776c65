import type { Column } from "../../components/table";
import { linkHandler, paths } from "../../router";
import type { DocumentListItem } from "../../types";
import { chars, dateTime, STATUS_TEXT } from "./format";

function Name({ d, href }: { d: DocumentListItem; href: string }) {
  return (
    <a href={href} onClick={linkHandler(href)} class="doc-name" title={d.external_id && d.external_id !== d.name ? `id ${d.external_id}` : undefined}>
      {d.name || d.external_id || `Document ${d.id}`}
    </a>
  );
}

/** "submitted 1 of 2" (2 = annotators per document; more than needed: "3 submitted, 2 needed"). */
export function submittedText(submitted: number, perDocument: number): string {
  return submitted <= perDocument ? `submitted ${submitted} of ${perDocument}` : `${submitted} submitted, ${perDocument} needed`;
}

const pill = (status: string) => <span class={`status-pill ${status}`}>{STATUS_TEXT[status] ?? status}</span>;

/** Who is assigned (or annotated): each username, marked by their status, opening their annotation. */
function Annotators({ d }: { d: DocumentListItem }) {
  const people = d.annotators ?? [];
  if (!people.length) return <span class="muted small">nobody</span>;
  return (
    <ul class="who-list" data-testid="doc-annotators">
      {people.map((a) => {
        const to = paths.document(d.id, a.id);
        return (
          <li key={a.id}>
            <a class={`who ${a.status}`} href={to} onClick={linkHandler(to)} title={`${a.username}: ${(STATUS_TEXT[a.status] ?? a.status).toLowerCase()}`}>
              <span class="who-mark" aria-hidden="true">
                {a.status === "submitted" ? "✓" : a.status === "in_progress" ? "…" : "○"}
              </span>
              {a.username}
              <span class="sr-only"> ({STATUS_TEXT[a.status] ?? a.status})</span>
            </a>
          </li>
        );
      })}
    </ul>
  );
}

/** The document list's columns: annotators see their own status; staff the project's and the counts. */
export function documentColumns({ staff, perDocument, annotator }: { staff: boolean; perDocument: number; annotator: number | null }): Column<DocumentListItem>[] {
  // With the annotator filter on, staff open that annotator's annotation.
  const href = (d: DocumentListItem) => paths.document(d.id, staff && annotator ? annotator : undefined);
  const cols: Column<DocumentListItem>[] = [
    { key: "position", label: "#", sort: "position", class: "num", render: (d) => d.position + 1 },
    { key: "name", label: "Document", render: (d) => <Name d={d} href={href(d)} /> },
    { key: "length", label: "Length", sort: "length", class: "right tabular nowrap", render: (d) => chars(d.length) },
  ];
  if (staff) {
    cols.push({
      key: "status",
      label: "Status",
      render: (d) => (
        <div class="doc-status">
          {pill(d.status)}
          <span class="small" data-testid="submitted-count">
            {submittedText(d.submitted ?? 0, perDocument)}
          </span>
          <span class="muted small">
            {d.assigned ?? 0} assigned · {d.in_progress ?? 0} in progress
          </span>
        </div>
      ),
    });
    cols.push({ key: "annotators", label: "Assigned to", render: (d) => <Annotators d={d} /> });
  } else {
    cols.push({ key: "status", label: "Status", render: (d) => pill(d.status) });
  }
  cols.push(
    { key: "updated", label: "Updated", sort: "updated", class: "nowrap muted small", render: (d) => dateTime(d.updated_at) },
    {
      key: "open",
      label: <span class="sr-only">Open</span>,
      class: "right",
      render: (d) => (
        <a class="btn small ghost" href={href(d)} onClick={linkHandler(href(d))}>
          {staff || d.status === "submitted" ? "View" : "Open"}
        </a>
      ),
    },
  );
  return cols;
}
