// Progress in words that tell the truth: never "all done" at 0 of N.

import { STAFF_ROLES } from "../../lib/roles";
import type { Progress } from "../../types";

/** An annotator's own queue, on the project page. */
export function queueText({ done, total }: Progress): string {
  if (total === 0) return "No document is assigned to you in this project yet.";
  if (done >= total) return `All ${total} of your documents are submitted. Thank you!`;
  return `${done} of your ${total} documents submitted · ${total - done} left`;
}

/** A project card: staff see the project's documents done, annotators their own queue. */
export function cardProgressText(role: string, { done, total }: Progress): string {
  if (STAFF_ROLES.includes(role)) return total === 0 ? "No documents yet" : `${done} of ${total} documents done`;
  if (total === 0) return "No documents assigned to you yet";
  if (done >= total) return `All ${total} of your documents are submitted`;
  return `${done} of your ${total} documents done`;
}
