import { describe, expect, it } from "vitest";
import { emptySlots, fillTemplate, parseTemplate, slotOrder } from "./template";
import { escapeHtml, renderMarkdown } from "./markdown";

describe("templates", () => {
  it("splits a template into text and slots, longest slot names first", () => {
    const pieces = parseTemplate("E1 claims P; E2 says P'. P's PE", ["E1", "E2", "P", "P'"]);
    expect(pieces).toEqual([
      { kind: "slot", slot: "E1" },
      { kind: "text", text: " claims " },
      { kind: "slot", slot: "P" },
      { kind: "text", text: "; " },
      { kind: "slot", slot: "E2" },
      { kind: "text", text: " says " },
      { kind: "slot", slot: "P'" },
      { kind: "text", text: ". " },
      { kind: "slot", slot: "P" }, // "P's" is P's possessive, not the slot P'
      { kind: "text", text: "'s PE" },
    ]);
  });

  it("fills values and orders slots by first appearance", () => {
    expect(fillTemplate("E attacks A, so P is false", ["E", "A", "P"], { E: "Bob", P: "" })).toBe(
      "Bob attacks A, so P is false",
    );
    expect(slotOrder("P because E", ["E", "P", "C"])).toEqual(["P", "E", "C"]);
    expect(parseTemplate("", ["E"])).toEqual([]);
    expect(parseTemplate("no slots", [])).toEqual([{ kind: "text", text: "no slots" }]);
  });
});

describe("empty template slots", () => {
  it("lists each label of each span with a blank slot, in span order", () => {
    const slots: Record<string, string[]> = { "ad hominem": ["E", "P"], "slippery slope": ["A"] };
    const spans = [
      { key: "a", labels: ["ad hominem", "no fallacy"], details: { "ad hominem": { slots: { E: "Smith", P: "  " } } } },
      { key: "b", labels: ["slippery slope"], details: { "slippery slope": { slots: { A: "this" } } } },
      { key: "c", labels: ["slippery slope", "ad hominem"], details: {} },
    ];
    expect(emptySlots(spans, (l) => slots[l] ?? [])).toEqual([
      { key: "a", label: "ad hominem", slots: ["P"] },
      { key: "c", label: "slippery slope", slots: ["A"] },
      { key: "c", label: "ad hominem", slots: ["E", "P"] },
    ]);
  });
});

describe("markdown", () => {
  it("escapes HTML before formatting", () => {
    expect(escapeHtml(`<a href="x">&'`)).toBe("&lt;a href=&quot;x&quot;&gt;&amp;&#39;");
    const html = renderMarkdown("<script>alert(1)</script> **bold** <img src=x onerror=alert(1)>");
    expect(html).not.toContain("<script");
    expect(html).not.toContain("<img");
    expect(html).toContain("<strong>bold</strong>");
  });

  it("renders headings, lists, emphasis, code, links and paragraphs", () => {
    const html = renderMarkdown(
      "# Guide\n\nFirst *para*\ncontinues.\n\n- one\n- two `x<y`\n\n1. a\n2. b\n\n[site](https://example.org) [bad](javascript:alert(1))",
    );
    expect(html).toContain("<h2>Guide</h2>");
    expect(html).toContain("<p>First <em>para</em> continues.</p>");
    expect(html).toContain("<ul><li>one</li><li>two <code>x&lt;y</code></li></ul>");
    expect(html).toContain("<ol><li>a</li><li>b</li></ol>");
    expect(html).toContain('<a href="https://example.org" target="_blank" rel="noopener noreferrer">site</a>');
    expect(html).not.toContain('href="javascript');
  });
});
