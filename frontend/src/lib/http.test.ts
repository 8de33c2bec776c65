import { describe, expect, it } from "vitest";
import { errorMessage, isOk, parseBody, statusOf } from "./http";

describe("answers of the REST API", () => {
  it("formats DRF error bodies", () => {
    expect(errorMessage({ detail: "Nope" })).toBe("Nope");
    expect(errorMessage({ annotation: ["submitted annotations are read-only"] })).toBe(
      "annotation: submitted annotations are read-only",
    );
    expect(errorMessage({ non_field_errors: ["bad range"] })).toBe("bad range");
    expect(errorMessage("<html>")).toBe("The server refused the change.");
  });

  it("falls back when no message can be found", () => {
    expect(errorMessage(null, "Request failed (500)")).toBe("Request failed (500)");
    expect(errorMessage({ errors: [{ nested: true }] }, "fallback")).toBe("fallback");
    expect(errorMessage({ count: 3, name: "bad name" })).toBe("name: bad name");
  });

  it("reads a body as JSON, else as text", () => {
    expect(parseBody("")).toBeNull();
    expect(parseBody('{"a": [1]}')).toEqual({ a: [1] });
    expect(parseBody("<html>Bad gateway</html>")).toBe("<html>Bad gateway</html>");
  });

  it("tells 2xx answers apart", () => {
    expect(isOk({ status: 200 })).toBe(true);
    expect(isOk({ status: 204 })).toBe(true);
    expect(isOk({ status: 199 })).toBe(false);
    expect(isOk({ status: 300 })).toBe(false);
    expect(isOk({ status: 409 })).toBe(false);
  });

  it("finds the status of a failed request, if it had one", () => {
    expect(statusOf({ status: 403 })).toBe(403);
    expect(statusOf(new TypeError("Failed to fetch"))).toBeNull();
    expect(statusOf(null)).toBeNull();
    expect(statusOf({ status: "403" })).toBeNull();
  });
});
