// One table of plain-words explanations for every metric, figure and scoring profile the
// results pages show (what it is, who defined it), and how a page looks one up.

export interface MetricHelp {
  /** The name a reader sees ("mean S", "Level 2 F1", "paper"). */
  label: string;
  /** One line: what the figure is and where it comes from. */
  text: string;
}

/** Keyed by the name the API uses (a metric, a profile, a figure); lower case. */
export const METRIC_HELP: Record<string, MetricHelp> = {
  // span leaderboard (MAFALDA): profiles and levels
  paper: {
    label: "paper",
    text: "Precision, recall and F1 as the MAFALDA paper (Helwe et al., NAACL 2024) defines them: a predicted span earns credit by how much it overlaps a gold span with the same label (any of a gold span's alternative labels counts).",
  },
  "mafalda-2024": {
    label: "mafalda-2024",
    text: "What MAFALDA's published scoring script computed, quirks included, so the figures can be set beside the paper's tables.",
  },
  "level 0": { label: "Level 0", text: "Fallacy or not: only whether a sentence was flagged, whatever the label." },
  "level 1": { label: "Level 1", text: "The broad category in MAFALDA's taxonomy: appeal to emotion, fallacy of credibility or fallacy of logic." },
  "level 2": { label: "Level 2", text: "The exact fallacy type (ad hominem, slippery slope…): the level rows are ranked by." },
  precision: { label: "P (precision)", text: "Of the fallacies predicted, the share that are in the gold." },
  recall: { label: "R (recall)", text: "Of the gold fallacies, the share that were predicted." },
  f1: { label: "F1", text: "The harmonic mean of precision and recall (0 to 1, higher is better); in brackets its 95% bootstrap interval over texts." },
  unparseable: { label: "Unparseable", text: "The share of model outputs the parser could not read as labels: they count as no answer." },
  // item benchmarks: profiles
  definition: {
    label: "definition",
    text: "The metric as its paper defines it: textbook precision, recall and F1; S over labels normalised by this platform's reading rules, averaged over items.",
  },
  "authors-smartypat": {
    label: "authors-smartypat",
    text: "Reproduces the SmartyPat-Bench authors' published scoring scripts, quirks included (substring label matches, −H₁₃ for “no fallacy”, S summed over fallacious items), to compare with their tables.",
  },
  // item benchmarks: metrics
  mean_s: {
    label: "mean S",
    text: "SmartyPat-Bench's categorisation score averaged over items: each ranked answer at position i earns +1/i if it is a right fallacy type and −1/i if wrong; above 0 is better than nothing, not on a 0–1 scale.",
  },
  sum_s: {
    label: "sum S",
    text: "The same categorisation score S summed over items instead of averaged (the SmartyPat-Bench authors' tables): grows with the number of items.",
  },
  accuracy: { label: "accuracy", text: "The share of items answered right (0 to 1)." },
  macro_f1: { label: "macro F1", text: "F1 computed for each label, then averaged with every label weighing the same (0 to 1)." },
  macro_recall: { label: "macro recall", text: "Recall computed for each label, then averaged with every label weighing the same." },
  span_f1: { label: "span F1", text: "F1 of exact (start, end, label) span matches, averaged over labels." },
  bertscore_f1: {
    label: "BERTScore F1",
    text: "How close an explanation's wording is to the reference, by matching token embeddings (Zhang et al., ICLR 2020); 0 to 1.",
  },
  char_f1: { label: "character F1", text: "F1 of the characters an explanation shares with the reference (spaces ignored): a language-independent overlap." },
  detection_accuracy: { label: "detection accuracy", text: "The share of items correctly called fallacious or sound." },
  top1_accuracy: { label: "top-1 accuracy", text: "The share of items whose first answer is a right type (“no fallacy” for a sound item)." },
  top_k_accuracy: { label: "top-k accuracy", text: "For each k, the share of items with a right type among the first k answers." },
  per_type_accuracy: { label: "per-type accuracy", text: "For each gold fallacy type, the share of its items whose answer names it." },
  counts: { label: "counts", text: "Yes/no answers on fallacious and benign items, the numbers the detection figures are computed from." },
  "judge mean": { label: "judge mean", text: "The mean score an LLM judge gave the explanations (the judge's own scale)." },
  "overall (macro)": { label: "Overall (macro)", text: "The plain average of the skills, each the mean of its tasks' figures on the 0–1 scale." },
  "overall (geometric)": {
    label: "Overall (geometric)",
    text: "The geometric mean of the skills (each the mean of its tasks' 0–1 figures): a weak skill pulls it down more than a plain average would.",
  },
  skill: { label: "skill", text: "The mean of the primary figures of the tasks that test this skill." },
  // agreement
  masi: {
    label: "MASI",
    text: "Measuring Agreement on Set-valued Items (Passonneau, 2006): a distance between two sets of labels that gives partial credit when they overlap; used inside Krippendorff's α.",
  },
  jaccard: { label: "Jaccard", text: "The size of two label sets' intersection over their union: another partial-credit distance for Krippendorff's α." },
  alpha: { label: "Krippendorff's α", text: "Agreement between raters corrected for chance (Krippendorff, 1980): 1 is perfect, 0 is chance level." },
  "alpha interval": { label: "α interval", text: "Krippendorff's α treating ratings as numbers (the size of a disagreement matters)." },
  "alpha ordinal": { label: "α ordinal", text: "Krippendorff's α treating ratings as ranks only (order matters, distances do not)." },
  "fleiss kappa": {
    label: "Fleiss' κ",
    text: "Agreement of several annotators on one category per sentence (its label set taken as one category), corrected for chance (Fleiss, 1971): 1 is perfect, 0 is chance level.",
  },
  "cohen kappa": { label: "Cohen's κ", text: "Agreement of two annotators on one category per sentence, corrected for chance (Cohen, 1960): 1 is perfect, 0 is chance level." },
  "disjunctive f1": {
    label: "disjunctive F1",
    text: "One annotator's spans scored against another's taken as the gold (profile paper): a span counts if its label is any of the other's labels for it.",
  },
  "per-label alpha": { label: "per-label α", text: "Krippendorff's α for one label alone: whether each sentence has it or not, by each annotator." },
  rho: { label: "Spearman's ρ", text: "Rank correlation between the mean human rating of each item and the judge's score (−1 to 1)." },
};

/** The explanation of a metric or profile name, case and spaces forgiven ("MEAN_S", "Level 2"). */
export function metricHelp(name: string | null | undefined): MetricHelp | null {
  if (!name) return null;
  const key = name.trim().toLowerCase();
  return METRIC_HELP[key] ?? METRIC_HELP[key.replace(/ /g, "_")] ?? METRIC_HELP[key.replace(/_/g, " ")] ?? null;
}

/** "mean S: SmartyPat-Bench's…" for a title attribute; "" for an unknown name. */
export function helpTitle(name: string | null | undefined): string {
  const h = metricHelp(name);
  return h ? `${h.label}: ${h.text}` : "";
}

/** The explanations of `names` in order, each once, unknown ones left out. */
export function helpFor(names: (string | null | undefined)[]): MetricHelp[] {
  const seen = new Set<string>();
  const out: MetricHelp[] = [];
  for (const n of names) {
    const h = metricHelp(n);
    if (h && !seen.has(h.label)) {
      seen.add(h.label);
      out.push(h);
    }
  }
  return out;
}
