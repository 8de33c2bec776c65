// One colour per level-1 category (colour-blind-friendly order, distinct on white).
export const PALETTE = [
  "#2563eb", // blue
  "#d97706", // amber
  "#059669", // green
  "#db2777", // pink
  "#7c3aed", // violet
  "#0891b2", // cyan
  "#dc2626", // red
  "#65a30d", // lime
  "#4b5563", // grey
];
export const NEUTRAL = "#64748b";

export function categoryColor(index: number | undefined): string {
  if (index === undefined || index < 0) return NEUTRAL;
  return PALETTE[index % PALETTE.length];
}
