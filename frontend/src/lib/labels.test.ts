import { describe, expect, it } from "vitest";
import {
  displayOrder,
  filterLabels,
  flattenTaxonomy,
  groupByCategory,
  hotkeyFor,
  isValidLabelSet,
  positionForHotkey,
  toggleLabel,
} from "./labels";
import type { Taxonomy } from "../types";

const t = (name: string, aliases: string[] = [], definition = "") => ({
  name,
  aliases,
  definition,
  template: "",
  slots: [],
  example: "",
});
const taxonomy: Taxonomy = {
  id: 1,
  name: "mafalda",
  version: "1",
  title: "MAFALDA",
  description: "",
  categories: [
    { name: "fallacy of credibility", definition: "", types: [t("ad hominem", ["personal attack"]), t("appeal to authority", [], "cites an expert")] },
    { name: "fallacy of logic", definition: "", types: [t("strawman", ["straw man"]), t("false dilemma", ["false dichotomy"])] },
    { name: "appeal to emotion", definition: "", types: [t("appeal to fear"), t("appeal to pity")] },
  ],
};
const options = flattenTaxonomy(taxonomy);
const names = (xs: { name: string }[]) => xs.map((x) => x.name);

describe("label search", () => {
  it("keeps taxonomy order for an empty query", () => {
    expect(names(filterLabels(options, "  "))).toEqual(names(options));
  });

  it("ranks name prefixes first, then word prefixes, aliases and initials", () => {
    expect(names(filterLabels(options, "appeal"))).toEqual([
      "appeal to authority",
      "appeal to fear",
      "appeal to pity",
    ]);
    expect(names(filterLabels(options, "fear"))[0]).toBe("appeal to fear");
    expect(names(filterLabels(options, "straw man"))).toEqual(["strawman"]);
    expect(names(filterLabels(options, "dichot"))).toEqual(["false dilemma"]);
    expect(names(filterLabels(options, "ah"))).toEqual(["ad hominem"]);
    expect(names(filterLabels(options, "Ad-Hom"))).toEqual(["ad hominem"]);
    expect(names(filterLabels(options, "credib"))).toEqual(["ad hominem", "appeal to authority"]);
    expect(names(filterLabels(options, "expert"))).toEqual(["appeal to authority"]);
    expect(filterLabels(options, "zzz")).toEqual([]);
  });

  it("groups results by category and numbers the first nine", () => {
    const groups = groupByCategory(filterLabels(options, ""));
    expect(groups.map((g) => g.category)).toEqual([
      "fallacy of credibility",
      "fallacy of logic",
      "appeal to emotion",
    ]);
    expect(names(displayOrder(filterLabels(options, "appeal")))).toEqual([
      "appeal to authority",
      "appeal to fear",
      "appeal to pity",
    ]);
    expect(hotkeyFor(0)).toBe("1");
    expect(hotkeyFor(8)).toBe("9");
    expect(hotkeyFor(9)).toBeNull();
    expect(positionForHotkey("3")).toBe(2);
    expect(positionForHotkey("0")).toBeNull();
    expect(positionForHotkey("a")).toBeNull();
  });

  it("toggles alternatives in taxonomy order with no fallacy last", () => {
    const order = names(options);
    let labels = toggleLabel([], "strawman", order);
    labels = toggleLabel(labels, "no fallacy", order);
    labels = toggleLabel(labels, "ad hominem", order);
    expect(labels).toEqual(["ad hominem", "strawman", "no fallacy"]);
    expect(toggleLabel(labels, "strawman", order)).toEqual(["ad hominem", "no fallacy"]);
    expect(isValidLabelSet(["no fallacy"])).toBe(false);
    expect(isValidLabelSet(["no fallacy", "strawman"])).toBe(true);
  });
});
