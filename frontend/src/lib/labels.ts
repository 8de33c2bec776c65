// The label picker's model: the taxonomy flattened into options, a forgiving search, and
// hotkeys for the visible results.

import { NO_FALLACY, type Taxonomy } from "../types";

export interface LabelOption {
  name: string;
  category: string;
  categoryIndex: number;
  aliases: string[];
  definition: string;
  template: string;
  slots: string[];
  example: string;
}

export function flattenTaxonomy(taxonomy: Taxonomy): LabelOption[] {
  const out: LabelOption[] = [];
  taxonomy.categories.forEach((cat, categoryIndex) => {
    for (const t of cat.types) {
      out.push({
        name: t.name,
        category: cat.name,
        categoryIndex,
        aliases: t.aliases ?? [],
        definition: t.definition ?? "",
        template: t.template ?? "",
        slots: t.slots ?? [],
        example: t.example ?? "",
      });
    }
  });
  return out;
}

/** Lower case, accents stripped, punctuation turned into spaces. */
export function normalize(s: string): string {
  return s
    .normalize("NFKD")
    .replace(/[\u0300-\u036f]/g, "")
    .toLowerCase()
    .replace(/[^a-z0-9']+/g, " ")
    .trim();
}

function wordPrefixes(query: string, text: string): boolean {
  // every query word is a prefix of some word of text, in any order
  const words = text.split(" ");
  return query.split(" ").every((q) => words.some((w) => w.startsWith(q)));
}

/** Relevance of one option for a query; 0 = no match. */
export function score(option: LabelOption, query: string): number {
  const q = normalize(query);
  if (!q) return 1;
  const name = normalize(option.name);
  if (name === q) return 100;
  if (name.startsWith(q)) return 90;
  if (wordPrefixes(q, name)) return 80;
  if (name.includes(q)) return 70;
  for (const alias of option.aliases) {
    const a = normalize(alias);
    if (a === q || a.startsWith(q)) return 60;
    if (wordPrefixes(q, a) || a.includes(q)) return 50;
  }
  // initials: "ah" -> "ad hominem"
  const initials = name
    .split(" ")
    .map((w) => w[0])
    .join("");
  if (q.length >= 2 && !q.includes(" ") && initials.startsWith(q)) return 45;
  const category = normalize(option.category);
  if (wordPrefixes(q, category)) return 30;
  if (q.length >= 3 && normalize(option.definition).includes(q)) return 10;
  return 0;
}

/**
 * Options matching the query. With an empty query: taxonomy order (grouped by category);
 * otherwise best matches first, ties in taxonomy order.
 */
export function filterLabels(options: LabelOption[], query: string): LabelOption[] {
  if (!normalize(query)) return options.slice();
  return options
    .map((o, i) => ({ o, i, s: score(o, query) }))
    .filter((x) => x.s > 0)
    .sort((a, b) => b.s - a.s || a.i - b.i)
    .map((x) => x.o);
}

export interface Group {
  category: string;
  categoryIndex: number;
  options: { option: LabelOption; index: number }[];
}

/** Consecutive results grouped by category, keeping each result's flat index. */
export function groupByCategory(results: LabelOption[]): Group[] {
  const groups: Group[] = [];
  const byName = new Map<string, Group>();
  results.forEach((option, index) => {
    let g = byName.get(option.category);
    if (!g) {
      g = { category: option.category, categoryIndex: option.categoryIndex, options: [] };
      byName.set(option.category, g);
      groups.push(g);
    }
    g.options.push({ option, index });
  });
  return groups;
}

/** Display order of grouped results (the order the hotkeys and arrow keys follow). */
export function displayOrder(results: LabelOption[]): LabelOption[] {
  return groupByCategory(results).flatMap((g) => g.options.map((x) => x.option));
}

/** Hotkey shown next to the n-th visible result: 1–9; 0 is "no fallacy". */
export function hotkeyFor(position: number): string | null {
  return position < 9 ? String(position + 1) : null;
}

export function positionForHotkey(key: string): number | null {
  if (/^[1-9]$/.test(key)) return Number(key) - 1;
  return null;
}

/** Toggle a label in a set of alternatives, keeping taxonomy order with "no fallacy" last. */
export function toggleLabel(labels: string[], label: string, order: string[]): string[] {
  const set = new Set(labels);
  if (set.has(label)) set.delete(label);
  else set.add(label);
  return sortLabels([...set], order);
}

export function sortLabels(labels: string[], order: string[]): string[] {
  const rank = (l: string) => (l === NO_FALLACY ? 1e9 : order.indexOf(l) < 0 ? 1e8 : order.indexOf(l));
  return [...labels].sort((a, b) => rank(a) - rank(b) || a.localeCompare(b));
}

/** A span needs at least one real fallacy label: "no fallacy" alone is not a span. */
export function isValidLabelSet(labels: string[]): boolean {
  return labels.some((l) => l !== NO_FALLACY);
}
