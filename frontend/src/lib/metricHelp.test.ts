import { describe, expect, it } from "vitest";
import { PROFILES } from "../pages/leaderboard/ProfileSwitch";
import { REVIEW_METRICS } from "../pages/review/dashboard/ReviewPage";
import { METRIC_HELP, helpFor, helpTitle, metricHelp } from "./metricHelp";

describe("metric help", () => {
  it("explains every name a newcomer meets on the results pages, however it is spelt", () => {
    for (const name of ["MEAN_S", "SUM_S", "MASI", "paper", "mafalda-2024", "definition", "authors-smartypat", "Level 0", "level 1", "level 2", "F1", "macro_f1", "accuracy", "bertscore_f1", "Overall (geometric)", "Overall (macro)"]) {
      expect(metricHelp(name), name).not.toBeNull();
    }
    expect(metricHelp("mean_s")?.label).toBe("mean S");
    expect(metricHelp("MEAN_S")?.text).toMatch(/SmartyPat/);
    expect(metricHelp("masi")?.text).toMatch(/Passonneau/);
    expect(metricHelp("paper")?.text).toMatch(/MAFALDA/);
    expect(metricHelp("no such figure")).toBeNull();
    expect(metricHelp(null)).toBeNull();
  });

  it("explains every agreement figure of the review dashboard", () => {
    const labels = helpFor(REVIEW_METRICS).map((h) => h.label);
    expect(labels).toEqual(["Krippendorff's α", "MASI", "Jaccard", "Fleiss' κ", "Cohen's κ", "disjunctive F1", "per-label α"]);
    expect(helpTitle("fleiss kappa")).toMatch(/^Fleiss' κ: .*chance/);
  });

  it("keeps every explanation to one short line", () => {
    for (const [key, h] of Object.entries(METRIC_HELP)) {
      expect(key).toBe(key.toLowerCase());
      expect(h.text, key).not.toMatch(/\n/);
      expect(h.text.length, key).toBeGreaterThan(20);
      expect(h.text.length, key).toBeLessThan(260);
    }
  });

  it("gives a title, and a legend with each name once", () => {
    expect(helpTitle("sum_s")).toMatch(/^sum S: /);
    expect(helpTitle("unknown")).toBe("");
    expect(helpFor(["mean_s", "MEAN_S", "unknown", null, "sum_s"]).map((h) => h.label)).toEqual(["mean S", "sum S"]);
  });

  it("describes the leaderboard's profiles from the same table", () => {
    expect(PROFILES.map((p) => p.id)).toEqual(["paper", "mafalda-2024"]);
    for (const p of PROFILES) expect(p.about).toBe(metricHelp(p.id)?.text);
  });
});
