import { describe, expect, it, vi } from "vitest";
import { match, navigate, paths, setNavigationGuard } from "./router";

describe("routes", () => {
  it("matches the app's pages with or without the trailing slash", () => {
    expect(match("/")).toEqual({ name: "home" });
    expect(match("/projects/3/")).toEqual({ name: "project", id: 3 });
    expect(match("/projects/3/runs")).toEqual({ name: "runs", projectId: 3 });
    expect(match("/projects/3/runs/new/")).toEqual({ name: "launch", projectId: 3 });
    expect(match("/runs/12/")).toEqual({ name: "run", id: 12 });
    expect(match("/projects/3/leaderboard/7/")).toEqual({ name: "leaderboard", projectId: 3, goldId: 7 });
  });

  it("matches an invitation link (its token: URL-safe base64)", () => {
    expect(match("/invite/Ab-9_z/")).toEqual({ name: "invite", token: "Ab-9_z" });
    expect(match("/invite/Ab-9_z")).toEqual({ name: "invite", token: "Ab-9_z" });
    expect(match("/invite/")).toEqual({ name: "notfound" });
    expect(match("/invite/a.b/")).toEqual({ name: "notfound" });
  });

  it("does not match malformed paths", () => {
    for (const p of ["/runs/", "/runs/x/", "/projects/3/runs/new/extra/", "/projects/3/leaderboard/", "/projects/a/runs/"]) {
      expect(match(p)).toEqual({ name: "notfound" });
    }
  });

  it("builds paths that match back", () => {
    expect(match(paths.runs(4))).toEqual({ name: "runs", projectId: 4 });
    expect(match(paths.launch(4))).toEqual({ name: "launch", projectId: 4 });
    expect(match(paths.run(9))).toEqual({ name: "run", id: 9 });
    expect(match(paths.leaderboard(4, 2))).toEqual({ name: "leaderboard", projectId: 4, goldId: 2 });
    expect(match(paths.projectSuggestions(4))).toEqual({ name: "projectSuggestions", projectId: 4 });
  });

  it("matches the generation pages", () => {
    expect(match(paths.generation())).toEqual({ name: "generation" });
    expect(match(paths.generationNew())).toEqual({ name: "generationNew" });
    expect(match(paths.generationRules())).toEqual({ name: "generationRules" });
    expect(match(paths.generationJob(5))).toEqual({ name: "generationJob", id: 5 });
    expect(match("/generation/jobs/x/")).toEqual({ name: "notfound" });
  });
});

describe("navigation guard", () => {
  it("keeps the page while a guard refuses, lets a forced move through, and is lifted", () => {
    // the History API, as far as navigate uses it (the tests run without a DOM)
    const at = { pathname: "/projects/1/adjudication/2/", search: "" };
    const go = (_state: unknown, _title: string, to: string) => {
      at.pathname = to;
    };
    vi.stubGlobal("location", at);
    vi.stubGlobal("history", { pushState: go, replaceState: go });
    vi.stubGlobal("window", { scrollTo: () => undefined });
    const asked: string[] = [];
    const lift = setNavigationGuard((to) => {
      asked.push(to);
      return false;
    });
    navigate("/projects/1/");
    expect(location.pathname).toBe("/projects/1/adjudication/2/");
    expect(asked).toEqual(["/projects/1/"]);
    navigate("/projects/1/", false, true);
    expect(location.pathname).toBe("/projects/1/");
    lift();
    navigate("/projects/1/gold/");
    expect(location.pathname).toBe("/projects/1/gold/");
    expect(asked).toEqual(["/projects/1/"]);
    vi.unstubAllGlobals();
  });
});
