// An import job's state as the import page shows it: running or finished, its progress,
// the report's figures and the line-numbered problems.

import type { ImportFormat, ImportJob, ImportProblem, ImportReport } from "../../../types";

export const FORMATS: { value: ImportFormat; label: string; accept: string; hint: string }[] = [
  { value: "mafalda", label: "MAFALDA (.jsonl)", accept: ".jsonl,.json", hint: 'One JSON object a line with "text" (and optionally "sentences_with_labels").' },
  { value: "doccano", label: "doccano (.jsonl)", accept: ".jsonl,.json", hint: 'doccano\'s JSONL export: "text" and "label" [start, end, name] triples.' },
  { value: "text", label: "Plain text (.txt or .jsonl)", accept: ".txt,.jsonl", hint: 'Texts separated by blank lines (.txt), or JSON lines with "text" and optionally "id", "source", "metadata" (.jsonl).' },
  { value: "csv", label: "CSV", accept: ".csv,.tsv", hint: "Pick the text column (and an optional id column) after choosing the file." },
  { value: "labelstudio", label: "Label Studio (.json)", accept: ".json", hint: "Label Studio's JSON export (either export route): its annotators are listed after choosing the file; map each to a member, invite them or drop their work, or import the texts only. Regions are snapped to whole sentences; predictions become an imported run." },
  { value: "hf", label: "Hugging Face dataset folder (.zip)", accept: ".zip", hint: "A folder written by export_dataset --format hf (README.md and data/*.parquet), zipped: a gold version becomes the next published version, items are added." },
  { value: "flub", label: "FLUB (.jsonl)", accept: ".jsonl,.json", hint: "FLUB's JSONL: text, is_question, type, explanation, id, options A–D and answer on every line." },
  { value: "smartypat", label: "SmartyPat (.csv)", accept: ".csv,.tsv", hint: "Columns id, original post, fallacy types (comma-separated; empty: sound) and declarative rewrite." },
  { value: "items", label: "Items: CSV or JSONL with a column mapping", accept: ".csv,.tsv,.jsonl,.json", hint: "Pick which column holds the text, the id, the options and each answer key after choosing the file." },
];

/** The format a file name suggests (null: keep the current choice). */
export function guessFormat(fileName: string): ImportFormat | null {
  const n = fileName.toLowerCase();
  if (n.endsWith(".csv") || n.endsWith(".tsv")) return "csv";
  if (n.endsWith(".txt")) return "text";
  if (n.endsWith(".zip")) return "hf";
  return null;
}

export const isActive = (job: ImportJob | null | undefined): boolean => !!job && (job.status === "queued" || job.status === "running");

/** Progress of a running job: lines (a dataset folder: rows) done of total (total unknown
 * while queued or while the folder is unpacked). */
export function jobProgress(job: ImportJob): { done: number; total: number; text: string } {
  const total = Math.max(0, job.lines_total || 0);
  const done = Math.min(Math.max(0, job.lines_done || 0), total || Infinity);
  if (job.status === "queued") return { done: 0, total, text: "Waiting for a worker…" };
  if (!total) return { done: 0, total: 0, text: "Reading the file…" };
  const unit = job.format === "hf" ? "rows" : "lines";
  return { done, total, text: `${done.toLocaleString("en")} / ${total.toLocaleString("en")} ${unit} checked` };
}

/** One problem as the page lists it: the server's "LINE: FIELD: message", else composed. */
export function problemText(p: ImportProblem): string {
  if (p.text) return p.text;
  return [p.line != null ? String(p.line) : null, p.field || null, p.message].filter(Boolean).join(": ");
}

/** How many problems the page lists at first; "Show all" lists the rest (the API sends all). */
export const PROBLEMS_SHOWN = 200;

/** The problems listed now: the first `limit` until the user asks for all; `hidden` = the rest. */
export function shownProblems<T>(problems: T[], all: boolean, limit = PROBLEMS_SHOWN): { shown: T[]; hidden: number } {
  if (all || problems.length <= limit) return { shown: problems, hidden: 0 };
  return { shown: problems.slice(0, limit), hidden: problems.length - limit };
}

/** Every problem, one "LINE: FIELD: message" a line: the text file the page offers. */
export function problemsFile(problems: ImportProblem[]): string {
  return problems.map((p) => `${problemText(p)}\n`).join("");
}

/** The name of that file: "data.csv" -> "data.csv-problems.txt". */
export function problemsFileName(fileName: string): string {
  const base = fileName.replace(/[\\/]/g, "_").trim() || "import";
  return `${base}-problems.txt`;
}

const n = (v: unknown): number => (typeof v === "number" && Number.isFinite(v) ? v : 0);

/** The figures of a finished import's report, in reading order. */
export function reportRows(report: ImportReport): { key: string; label: string; value: number }[] {
  const rows = [
    { key: "texts", label: "Texts read", value: n(report.texts) },
    { key: "documents_created", label: "Documents created", value: n(report.documents_created) },
    { key: "documents_reused", label: "Documents already there (reused)", value: n(report.documents_reused) },
    { key: "sentences", label: "Sentences stored", value: n(report.sentences) },
    { key: "spans", label: "Spans", value: n(report.spans) },
    { key: "skipped_to_clean", label: 'Skipped "to clean" triples', value: n(report.skipped_to_clean) },
  ];
  // Spans and skipped triples only mean something for annotated formats; show them when set.
  const shown = rows.filter((r) => !(r.key === "spans" || r.key === "skipped_to_clean") || r.value > 0 || "spans" in report);
  // Label Studio's figures: annotations, snapping and the runs its predictions became.
  const extra = [
    { key: "annotations_created", label: "Annotations submitted", value: n(report.annotations_created) },
    { key: "annotations_dropped", label: "Annotations not imported (dropped or texts only)", value: n(report.annotations_dropped) },
    { key: "predictions", label: "Predictions read", value: n(report.predictions) },
    { key: "regions_moved", label: "Regions moved to sentence boundaries", value: n(report.regions_moved) },
    { key: "chars_moved", label: "Characters added by that snapping", value: n(report.chars_moved) },
    { key: "runs", label: "Runs imported from predictions", value: Array.isArray(report.runs) ? report.runs.length : 0 },
  ];
  if (report.format === "hf") {
    // A dataset folder: its gold version (span exports) becomes a published version.
    const rows = shown.filter((r) => r.key !== "skipped_to_clean");
    const gold = report.gold_version;
    return typeof gold === "number" ? [...rows, { key: "gold_version", label: "Gold version published", value: gold }] : rows;
  }
  return [...shown, ...extra.filter((r) => r.key in report && report.format === "labelstudio")];
}

/** One line of the recent-imports table: "20 created, 0 reused" or "3 problems". */
export function jobSummary(job: ImportJob): string {
  if (job.status === "failed") {
    const count = job.errors.length;
    return count === 1 ? "1 problem · nothing imported" : `${count} problems · nothing imported`;
  }
  if (job.status !== "succeeded") return job.status === "queued" ? "Queued" : "Running";
  return `${n(job.report.documents_created)} created, ${n(job.report.documents_reused)} reused`;
}
