import { describe, expect, it } from "vitest";
import type { Me } from "../types";
import { isProjectStaff, roleIn } from "./roles";

const me = (projects: Me["projects"], is_staff = false): Me => ({ id: 1, username: "u", is_staff, projects });

describe("project staff", () => {
  it("counts reviewers and admins, not annotators", () => {
    const m = me([
      { id: 1, name: "a", role: "reviewer" },
      { id: 2, name: "b", role: "annotator" },
      { id: 3, name: "c", role: "admin" },
    ]);
    expect(isProjectStaff(m, 1)).toBe(true);
    expect(isProjectStaff(m, 2)).toBe(false);
    expect(isProjectStaff(m, 3)).toBe(true);
  });

  it("prefers the project's own role, and falls back on is_staff when no role is known", () => {
    const m = me([{ id: 1, name: "a", role: "annotator" }], true);
    expect(roleIn(m, 1, "admin")).toBe("admin");
    expect(isProjectStaff(m, 1, "admin")).toBe(true);
    expect(isProjectStaff(m, 1)).toBe(false);
    expect(isProjectStaff(m, 9)).toBe(true);
    expect(isProjectStaff(me([]), 9)).toBe(false);
  });
});
