// A Label Studio import's choices: the annotators the file holds (read first, with their
// counts), and per annotator what happens to their work: the default (the user remembered
// for them in this project, a member with their e-mail, else a new placeholder account), an
// existing member, an invitation by e-mail, or dropped. "Texts only" imports no annotation.

import type { FormErrors } from "../../../lib/formErrors";

export type AnnotatorAction = "auto" | "member" | "invite" | "drop";

export interface LsAnnotator {
  key: string;
  source_id: string;
  email: string;
  shown: string;
  annotations: number;
  regions: number;
  default: { how: "remembered" | "member" | "invited" | "new"; user: string | null };
}

export interface LsPreview {
  tasks: number;
  predictions: number;
  annotators: LsAnnotator[];
  members: string[];
}

export interface AnnotatorChoice {
  action: AnnotatorAction;
  user: string;
  email: string;
}

export const ACTIONS: { value: AnnotatorAction; label: string }[] = [
  { value: "auto", label: "Default" },
  { value: "member", label: "A member" },
  { value: "invite", label: "Invite by e-mail" },
  { value: "drop", label: "Drop their work" },
];

/** What the default does with an annotator, in words. */
export function defaultText(a: LsAnnotator): string {
  const user = a.default.user;
  if (a.default.how === "remembered" && user) return `${user} (as in earlier imports)`;
  if (a.default.how === "invited" && user) return `${user} (waiting for their invitation)`;
  if (a.default.how === "member" && user) return `${user} (the member with this e-mail)`;
  return "a new placeholder account (cannot sign in)";
}

/** Every annotator on the default; an invitation pre-filled with the file's e-mail. */
export function initialChoices(preview: LsPreview): Record<string, AnnotatorChoice> {
  return Object.fromEntries(preview.annotators.map((a) => [a.key, { action: "auto", user: "", email: a.email }]));
}

const looksLikeEmail = (s: string) => /^[^\s@]+@[^\s@]+\.[^\s@]+$/.test(s.trim());

/** The `annotators` field the API takes (JSON; defaults left out), or the problems, each
 * on the path "annotators.KEY". */
export function buildAnnotatorChoices(choices: Record<string, AnnotatorChoice>): { json?: string; errors: FormErrors } {
  const fields: Record<string, string[]> = {};
  const out: Record<string, Record<string, string>> = {};
  for (const [key, c] of Object.entries(choices)) {
    if (c.action === "member") {
      if (!c.user) fields[`annotators.${key}`] = ["Choose the member."];
      else out[key] = { action: "member", user: c.user };
    } else if (c.action === "invite") {
      if (!looksLikeEmail(c.email)) fields[`annotators.${key}`] = ["Give the e-mail address to invite."];
      else out[key] = { action: "invite", email: c.email.trim() };
    } else if (c.action === "drop") out[key] = { action: "drop" };
  }
  if (Object.keys(fields).length) return { errors: { fields, general: [] } };
  return { json: Object.keys(out).length ? JSON.stringify(out) : undefined, errors: { fields: {}, general: [] } };
}

/** A finished Label Studio import's per-annotator lines: "ann@x (Label Studio user 1): 2
 * annotations, 3 spans → ann". */
export function annotatorLines(report: Record<string, unknown>): string[] {
  const rows = Array.isArray(report.per_annotator) ? (report.per_annotator as Record<string, unknown>[]) : [];
  return rows.map((r) => {
    const holder = typeof r.user === "string" ? r.user : "dropped";
    return `${String(r.source)}: ${Number(r.annotations) || 0} annotations, ${Number(r.spans) || 0} spans → ${holder}`;
  });
}
