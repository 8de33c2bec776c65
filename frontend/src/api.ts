// Fetch wrapper for the Django REST API: session cookie + CSRF header, JSON in and out.

import { errorMessage, type HttpResult, isOk, parseBody } from "./lib/http";

export function cookie(name: string): string | null {
  for (const part of document.cookie.split(";")) {
    const [k, ...v] = part.trim().split("=");
    if (k === name) return decodeURIComponent(v.join("="));
  }
  return null;
}

export class ApiError extends Error {
  status: number;
  data: unknown;
  constructor(status: number, data: unknown, message: string) {
    super(message);
    this.status = status;
    this.data = data;
  }
}

const TIMEOUT_MS = 20000;

/** Any HTTP status resolves; only a missing response (offline, timeout) rejects. */
export async function http(method: string, url: string, body?: unknown): Promise<HttpResult> {
  const headers: Record<string, string> = { Accept: "application/json" };
  if (body !== undefined) headers["Content-Type"] = "application/json";
  if (method !== "GET" && method !== "HEAD") {
    const token = cookie("csrftoken");
    if (token) headers["X-CSRFToken"] = token;
  }
  const ctrl = new AbortController();
  const timer = setTimeout(() => ctrl.abort(), TIMEOUT_MS);
  try {
    const res = await fetch(url, {
      method,
      headers,
      body: body === undefined ? undefined : JSON.stringify(body),
      credentials: "same-origin",
      signal: ctrl.signal,
    });
    return { status: res.status, data: parseBody(await res.text()) };
  } finally {
    clearTimeout(timer);
  }
}

export async function api<T>(method: string, url: string, body?: unknown): Promise<T> {
  const res = await http(method, url, body);
  if (!isOk(res)) throw new ApiError(res.status, res.data, errorMessage(res.data, `Request failed (${res.status})`));
  return res.data as T;
}

export const get = <T,>(url: string) => api<T>("GET", url);
export const post = <T,>(url: string, body?: unknown) => api<T>("POST", url, body ?? {});

export async function ensureCsrf(): Promise<void> {
  if (!cookie("csrftoken")) await http("GET", "/api/auth/csrf/");
}

export function isAuthError(e: unknown): boolean {
  return e instanceof ApiError && (e.status === 401 || e.status === 403);
}
