// The component rendered to its virtual DOM (no browser needed): what it shows for a file's
// annotators, and what each control reports back.
import { type VNode, h } from "preact";
import { describe, expect, it } from "vitest";
import type { AnnotatorChoice, LsPreview } from "../shared/labelStudio";
import { LabelStudioChoices, type LabelStudioChoicesProps } from "./LabelStudioChoices";

const preview: LsPreview = {
  tasks: 2,
  predictions: 0,
  members: ["alice", "boss"],
  annotators: [
    { key: "1", source_id: "1", email: "ann@example.org", shown: "ann@example.org (Label Studio user 1)", annotations: 2, regions: 3, default: { how: "new", user: null } },
    { key: "2", source_id: "2", email: "", shown: "Label Studio user 2", annotations: 1, regions: 1, default: { how: "member", user: "alice" } },
  ],
};

type Node = VNode<Record<string, unknown>> | string | number | null | undefined | boolean | Node[];

/** Every element of the tree (components called with their props). */
function flatten(node: Node): VNode<Record<string, unknown>>[] {
  if (Array.isArray(node)) return node.flatMap(flatten);
  if (!node || typeof node !== "object") return [];
  if (typeof node.type === "function") return flatten((node.type as (p: unknown) => Node)(node.props));
  return [node, ...flatten(node.props.children as Node)];
}

function text(node: Node): string {
  if (Array.isArray(node)) return node.map(text).join("");
  if (node === null || node === undefined || typeof node === "boolean") return "";
  if (typeof node !== "object") return String(node);
  return text(node.props.children as Node);
}

function render(over: Partial<LabelStudioChoicesProps> = {}) {
  const calls: { texts: boolean[]; choices: [string, AnnotatorChoice][] } = { texts: [], choices: [] };
  const props: LabelStudioChoicesProps = {
    preview,
    textsOnly: false,
    onTextsOnly: (on) => calls.texts.push(on),
    choices: { "1": { action: "auto", user: "", email: "ann@example.org" }, "2": { action: "member", user: "", email: "" } },
    onChoice: (key, c) => calls.choices.push([key, c]),
    errors: { fields: {}, general: [] },
    ...over,
  };
  const nodes = flatten(h(LabelStudioChoices, props) as unknown as Node);
  const byTestId = (id: string) => nodes.find((n) => n.props["data-testid"] === id);
  return { nodes, byTestId, calls };
}

const fire = (node: VNode<Record<string, unknown>> | undefined, handler: string, target: Record<string, unknown>) =>
  (node!.props[handler] as (e: unknown) => void)({ target });

describe("LabelStudioChoices", () => {
  it("lists each annotator with its counts and what the default does", () => {
    const { byTestId } = render();
    expect(text(byTestId("ls-choices")!.props.children as Node)).toContain("2 tasks, 2 annotators");
    const row = text(byTestId("ls-annotator-1")!.props.children as Node);
    expect(row).toContain("ann@example.org (Label Studio user 1)23");
    expect(row).toContain("Default: a new placeholder account (cannot sign in)");
    expect(text(byTestId("ls-annotator-2")!.props.children as Node)).toContain("Default: alice (the member with this e-mail)");
  });

  it("offers the members for a member choice and an e-mail field for an invitation", () => {
    const { byTestId } = render({ choices: { "1": { action: "invite", user: "", email: "ann@example.org" }, "2": { action: "member", user: "", email: "" } } });
    expect(byTestId("ls-invite-1")!.props.value).toBe("ann@example.org");
    expect(text(byTestId("ls-member-2")!.props.children as Node)).toBe("Choose a member…aliceboss");
    expect(byTestId("ls-member-1")).toBeUndefined();
  });

  it("reports each change with the annotator's key", () => {
    const { byTestId, calls } = render();
    fire(byTestId("ls-action-1"), "onChange", { value: "drop" });
    fire(byTestId("ls-member-2"), "onChange", { value: "boss" });
    fire(byTestId("ls-texts-only"), "onChange", { checked: true });
    expect(calls.choices).toEqual([
      ["1", { action: "drop", user: "", email: "ann@example.org" }],
      ["2", { action: "member", user: "boss", email: "" }],
    ]);
    expect(calls.texts).toEqual([true]);
  });

  it("hides the annotators when importing texts only, and shows a choice's problem", () => {
    expect(render({ textsOnly: true }).byTestId("ls-annotators")).toBeUndefined();
    const { nodes } = render({ errors: { fields: { "annotators.2": ["Choose the member."] }, general: [] } });
    expect(nodes.filter((n) => n.props.role === "alert").map((n) => text(n.props.children as Node))).toEqual(["Choose the member."]);
  });
});
