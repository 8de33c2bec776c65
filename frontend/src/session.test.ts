import { describe, expect, it } from "vitest";
import { signedInHint } from "./session";

const page = (content: string | null) => ({
  querySelector: (selector: string) => (selector === 'meta[name="fallacy-session"]' && content !== null ? ({ getAttribute: () => content } as unknown as Element) : null),
});

describe("the server's session hint", () => {
  it("tells signed in, anonymous, and no hint apart", () => {
    expect(signedInHint(page("1"))).toBe(true);
    expect(signedInHint(page("0"))).toBe(false);
    expect(signedInHint(page(null))).toBeNull();
  });
});
