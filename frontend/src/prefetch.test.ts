import { afterEach, describe, expect, it, vi } from "vitest";
import { clearPrefetch, takeDocument } from "./prefetch";

const opened = {
  id: 7,
  project: 3,
  name: "doc",
  external_id: "",
  text: "One. Two.",
  sentences: [
    { index: 0, start: 0, end: 4 },
    { index: 1, start: 5, end: 9 },
  ],
  my_status: "in_progress",
  project_kind: "spans",
  annotations: [
    { id: 11, annotator: { id: 2, username: "a" }, status: "in_progress", revision: 3, updated_at: null, submitted_at: null, spans: [] },
  ],
};

function stubFetch(): string[] {
  const urls: string[] = [];
  vi.stubGlobal("document", { cookie: "" });
  vi.stubGlobal(
    "fetch",
    vi.fn(async (url: string) => {
      urls.push(url);
      const body = url.startsWith("/api/documents/") ? opened : { id: 3, name: "p" };
      return new Response(JSON.stringify(body), { status: 200 });
    }),
  );
  return urls;
}

afterEach(() => {
  clearPrefetch();
  vi.unstubAllGlobals();
});

describe("opening a document", () => {
  it("makes one call for the document and its annotations, then the project", async () => {
    const urls = stubFetch();
    const bundle = takeDocument(7);
    const [doc, annotations, project] = await Promise.all([bundle.doc, bundle.annotations, bundle.project]);
    expect(urls).toEqual(["/api/documents/7/open/", "/api/projects/3/"]);
    expect(doc).not.toHaveProperty("annotations");
    expect(doc.text).toBe("One. Two.");
    expect(doc.sentences).toHaveLength(2);
    expect(annotations.map((a) => a.id)).toEqual([11]);
    expect(project.id).toBe(3);
  });

  it("reuses the project detail across documents of one project", async () => {
    const urls = stubFetch();
    await takeDocument(7).project;
    await takeDocument(8).project;
    expect(urls.filter((u) => u.startsWith("/api/projects/"))).toEqual(["/api/projects/3/"]);
  });
});
