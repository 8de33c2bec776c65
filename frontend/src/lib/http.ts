// What a request to the REST API answers and how its errors read, shared by the fetch wrapper
// (api.ts), the admin forms and the autosave queues. No DOM and no fetch: runs under Vitest.

export interface HttpResult {
  status: number;
  data: any; // eslint-disable-line @typescript-eslint/no-explicit-any
}

/** Resolves with any HTTP status; rejects only when no response came (network down). */
export type Http = (method: string, url: string, body?: unknown) => Promise<HttpResult>;

/** A 2xx answer. */
export const isOk = (r: { status: number }): boolean => r.status >= 200 && r.status < 300;

/** The HTTP status of a failed request (ApiError and the like), or null without a response. */
export function statusOf(e: unknown): number | null {
  const status = (e as { status?: unknown } | null)?.status;
  return typeof status === "number" ? status : null;
}

/** A response body: its JSON, else the text itself; null when empty. */
export function parseBody(text: string): unknown {
  if (!text) return null;
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

/** First message of a DRF error body ({"field": ["message"]} or {"detail": "..."}). */
export function errorMessage(data: unknown, fallback = "The server refused the change."): string {
  if (!data || typeof data !== "object") return fallback;
  const obj = data as Record<string, unknown>;
  if (typeof obj.detail === "string") return obj.detail;
  for (const [field, value] of Object.entries(obj)) {
    const msg = Array.isArray(value) ? value[0] : value;
    if (typeof msg === "string") return field === "non_field_errors" ? msg : `${field}: ${msg}`;
  }
  return fallback;
}
