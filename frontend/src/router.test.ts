import { describe, expect, it } from "vitest";
import { match, paths } from "./router";

describe("routes", () => {
  it("matches the app's pages with or without the trailing slash", () => {
    expect(match("/")).toEqual({ name: "home" });
    expect(match("/projects/3/")).toEqual({ name: "project", id: 3 });
    expect(match("/projects/3/runs")).toEqual({ name: "runs", projectId: 3 });
    expect(match("/projects/3/runs/new/")).toEqual({ name: "launch", projectId: 3 });
    expect(match("/runs/12/")).toEqual({ name: "run", id: 12 });
    expect(match("/projects/3/leaderboard/7/")).toEqual({ name: "leaderboard", projectId: 3, goldId: 7 });
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
