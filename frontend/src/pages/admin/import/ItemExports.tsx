// Download an item project's items with their gold (and, as items JSONL, the answers).

const EXPORTS: { format: string; label: string; extra?: string }[] = [
  { format: "flub", label: "FLUB JSONL" },
  { format: "smartypat", label: "SmartyPat CSV" },
  { format: "items", label: "Items JSONL" },
  { format: "items", label: "Items JSONL with the submitted answers", extra: "&responses=true" },
];

export function ItemExports({ projectId }: { projectId: number }) {
  return (
    <section class="admin-section-plain" aria-labelledby="export-title" data-testid="item-exports">
      <h2 id="export-title" class="subhead-lg">
        Export
      </h2>
      <p class="muted small">Every item with its gold; a file imported in the same format comes back as it was read.</p>
      <ul class="export-links">
        {EXPORTS.map((e) => (
          <li key={e.label}>
            <a href={`/api/datasets/export/?project=${projectId}&format=${e.format}${e.extra ?? ""}`} download data-testid={`export-${e.format}${e.extra ? "-responses" : ""}`}>
              {e.label}
            </a>
          </li>
        ))}
      </ul>
    </section>
  );
}
