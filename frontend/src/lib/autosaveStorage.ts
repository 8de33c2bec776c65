// Where the span autosave queue keeps its waiting operations: persistent storage
// (localStorage in the browser), written before anything is sent, so a reload or a crash
// loses nothing. One key per document and user, whether or not its annotation exists yet.

import type { Op } from "./spanOps";

export interface KeyValueStore {
  getItem(key: string): string | null;
  setItem(key: string, value: string): void;
  removeItem(key: string): void;
}

/** The key of older pages, one per annotation (read once and moved to the document key). */
export function storageKeyFor(annotationId: number): string {
  return `fallacy.autosave.v1.${annotationId}`;
}

/** Where a document's unsaved changes wait (before and after its annotation exists). */
export function documentStorageKey(documentId: number, userId: number): string {
  return `fallacy.autosave.v1.doc.${documentId}.user.${userId}`;
}

/** The operations stored under `key`; null when none or unreadable. */
export function readOps(store: KeyValueStore | null | undefined, key: string): Op[] | null {
  const raw = store?.getItem(key);
  if (!raw) return null;
  try {
    const parsed = JSON.parse(raw);
    return parsed?.v === 1 && Array.isArray(parsed.ops) ? parsed.ops : null;
  } catch {
    return null; // unreadable: start empty
  }
}

/** Store `ops` under `key` (no operations: remove the key). */
export function writeOps(store: KeyValueStore, key: string, ops: readonly Op[]): void {
  try {
    if (ops.length) store.setItem(key, JSON.stringify({ v: 1, ops }));
    else store.removeItem(key);
  } catch {
    /* storage full or disabled: the in-memory queue still works */
  }
}
