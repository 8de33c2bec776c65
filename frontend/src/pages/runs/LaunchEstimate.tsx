import { useDebounced } from "../../hooks/useDebounced";
import { useResource } from "../../hooks/useResource";
import type { LaunchForm } from "../../lib/launch";
import { type LaunchPreview, chosenModels, estimateText, previewQuery, requestsText } from "../../lib/launchPreview";
import type { SuggestedModel } from "../../types";

/** Before launch: the requests each run sends and each model's estimated time here. */
export function LaunchEstimate({ form, suggested }: { form: LaunchForm; suggested: SuggestedModel[] }) {
  const query = useDebounced(previewQuery(form, suggested), 300);
  const preview = useResource<LaunchPreview>(query ? `/api/evaluation/launch-preview/${query}` : null);
  if (!query) return null;
  const data = preview.data;
  if (!data) return <p class="note" data-testid="launch-estimate">{preview.error ? "No estimate: the preview did not load." : "Counting the requests…"}</p>;
  const models = chosenModels(form, suggested);
  const label = (i: number) => {
    const index = [...form.suggested].sort((a, b) => a - b)[i];
    return index != null && suggested[index] ? suggested[index].label : models[i] || "model";
  };
  return (
    <div class="note" data-testid="launch-estimate" aria-live="polite">
      <p data-testid="launch-requests">{requestsText(data, form.variants.length)}</p>
      {data.estimates.map((e, i) => (
        <p key={i} data-testid="launch-eta">
          {estimateText(e, label(i), form.variants.length)}
        </p>
      ))}
    </div>
  );
}
