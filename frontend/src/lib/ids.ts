/** A DOM id for an error path ("models[0].model" → "err-models-0-model"). */
export function errorId(path: string): string {
  return `err-${path.replace(/[^A-Za-z0-9_-]+/g, "-").replace(/-+$/, "")}`;
}
