/** A collapsible, read-only JSON block. */
export function JsonView({ title, value, open = false, testId }: { title: string; value: unknown; open?: boolean; testId?: string }) {
  const empty = value == null || (typeof value === "object" && Object.keys(value as object).length === 0);
  return (
    <details class="json-view" open={open} data-testid={testId}>
      <summary>{title}</summary>
      {empty ? <p class="muted small">Nothing recorded.</p> : <pre class="code">{JSON.stringify(value, null, 2)}</pre>}
    </details>
  );
}
