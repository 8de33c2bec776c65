// Requests of the admin forms: JSON or multipart (file uploads), with the CSRF header.
// Like api.http, any HTTP status resolves; only a missing response (offline) rejects.

import { cookie, ensureCsrf, http } from "../../api";
import { type HttpResult, parseBody } from "../../lib/http";

export type FormValue = string | number | boolean | Blob | null | undefined;

/** FormData of the given values, leaving out empty ones (undefined, null, ""); a list is
 * sent as repeated parts, every item kept (an empty string too, so lists stay aligned). */
export function toFormData(fields: Record<string, FormValue | FormValue[]>): FormData {
  const data = new FormData();
  const add = (k: string, v: FormValue) => {
    if (v instanceof Blob) data.append(k, v, (v as File).name ?? k);
    else data.append(k, String(v ?? ""));
  };
  for (const [k, v] of Object.entries(fields)) {
    if (Array.isArray(v)) v.forEach((item) => add(k, item));
    else if (v !== undefined && v !== null && v !== "") add(k, v);
  }
  return data;
}

/** POST a multipart form (a file upload); no timeout, uploads may be large. */
export async function sendMultipart(url: string, fields: Record<string, FormValue | FormValue[]>, method = "POST"): Promise<HttpResult> {
  await ensureCsrf();
  const headers: Record<string, string> = { Accept: "application/json" };
  const token = cookie("csrftoken");
  if (token) headers["X-CSRFToken"] = token;
  const res = await fetch(url, { method, headers, body: toFormData(fields), credentials: "same-origin" });
  return { status: res.status, data: parseBody(await res.text()) };
}

/** A JSON write (POST/PATCH/DELETE) after making sure the CSRF cookie exists. */
export async function sendJson(method: string, url: string, body?: unknown): Promise<HttpResult> {
  await ensureCsrf();
  return http(method, url, body);
}

export { isOk } from "../../lib/http";
