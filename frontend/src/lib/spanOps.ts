// The changes the span autosave queue sends: one operation per change to a span, coalesced
// while it waits, and replayed over the loaded spans to show unsaved work after a reload.

import type { Details, ServerSpan } from "../types";

export interface SpanFields {
  start: number;
  end: number;
  labels: string[];
  details: Details;
}

export type Op =
  | { kind: "create"; key: string; fields: SpanFields }
  | { kind: "update"; key: string; fields: Partial<SpanFields> }
  | { kind: "delete"; key: string };

/** A new client id for a span (a v4 UUID). */
export function newKey(): string {
  if (typeof crypto !== "undefined" && "randomUUID" in crypto) return crypto.randomUUID();
  // RFC 4122 v4 from Math.random (insecure contexts without crypto.randomUUID)
  return "xxxxxxxx-xxxx-4xxx-yxxx-xxxxxxxxxxxx".replace(/[xy]/g, (c) => {
    const r = (Math.random() * 16) | 0;
    return (c === "x" ? r : (r & 0x3) | 0x8).toString(16);
  });
}

function sameJson(a: unknown, b: unknown): boolean {
  return JSON.stringify(a) === JSON.stringify(b);
}

function canonicalDetails(d: Details): unknown {
  return Object.keys(d)
    .sort()
    .map((k) => [
      k,
      Object.keys(d[k]?.slots ?? {})
        .sort()
        .filter((s) => d[k].slots[s])
        .map((s) => [s, d[k].slots[s]]),
      d[k]?.explanation ?? "",
    ]);
}

export function sameFields(fields: SpanFields, span: ServerSpan): boolean {
  return (
    fields.start === span.start &&
    fields.end === span.end &&
    sameJson([...fields.labels].sort(), [...span.labels].sort()) &&
    sameJson(canonicalDetails(fields.details), canonicalDetails(span.details ?? {}))
  );
}

/** The server span already holds every field of a (partial) change. */
export function fieldsApplied(fields: Partial<SpanFields>, span: ServerSpan): boolean {
  if (fields.start !== undefined && fields.start !== span.start) return false;
  if (fields.end !== undefined && fields.end !== span.end) return false;
  if (fields.labels && !sameJson([...fields.labels].sort(), [...span.labels].sort())) return false;
  return !fields.details || sameJson(canonicalDetails(fields.details), canonicalDetails(span.details ?? {}));
}

/**
 * The queue after adding `op`; operations before index `firstFree` (the one being sent) are
 * left alone. An update merges into the span's last waiting create or update; a delete drops
 * the span's waiting operations, and is itself dropped when the span was created while queued
 * (it never needs to reach the server).
 */
export function coalesce(ops: readonly Op[], op: Op, firstFree: number): Op[] {
  if (op.kind === "update") {
    for (let i = ops.length - 1; i >= firstFree; i--) {
      const prev = ops[i];
      if (prev.key !== op.key) continue;
      if (prev.kind === "delete") break;
      const merged = [...ops];
      if (prev.kind === "create") merged[i] = { ...prev, fields: { ...prev.fields, ...op.fields } };
      else merged[i] = { ...prev, fields: { ...prev.fields, ...op.fields } };
      return merged;
    }
    return [...ops, op];
  }
  if (op.kind === "delete") {
    let createdHere = false;
    const kept: Op[] = [];
    ops.forEach((prev, i) => {
      if (i >= firstFree && prev.key === op.key) {
        if (prev.kind === "create") createdHere = true;
        return; // superseded by the delete
      }
      kept.push(prev);
    });
    return createdHere ? kept : [...kept, op];
  }
  return [...ops, op];
}

/** Apply queued operations to a list of spans (for showing unsaved work after a reload). */
export function applyOps<T extends SpanFields & { key: string }>(
  spans: T[],
  ops: readonly Op[],
  make: (key: string, fields: SpanFields) => T,
): T[] {
  const byKey = new Map(spans.map((s) => [s.key, s]));
  for (const op of ops) {
    const cur = byKey.get(op.key);
    if (op.kind === "create") {
      byKey.set(op.key, cur ? { ...cur, ...op.fields } : make(op.key, op.fields));
    } else if (op.kind === "update") {
      if (cur) byKey.set(op.key, { ...cur, ...op.fields });
    } else {
      byKey.delete(op.key);
    }
  }
  return [...byKey.values()];
}
