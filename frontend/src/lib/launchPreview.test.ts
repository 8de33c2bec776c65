import { describe, expect, it } from "vitest";
import type { LaunchOptions } from "../types";
import { initialForm } from "./launch";
import { NO_ESTIMATE, TYPICAL, estimateText, previewQuery, requestsText } from "./launchPreview";

const options = {
  can_launch: true,
  kind: "spans",
  gold_standards: [{ id: 7, version: 1, status: "published", documents: 200 }],
  backends: ["random", "transformers"],
  suggested_models: [
    { label: "SmolLM2 (transformers)", backend: "transformers", model: "SmolLM2-135M-Instruct (Q4_1)", settings: { batch_size: 4 } },
    { label: "Random baseline", backend: "random", model: "", settings: {} },
  ],
  variants: [{ id: 3, name: "zero-shot", kind: "zero-shot", task: "mafalda", version: 1 }],
  levels: [2, 1, 0],
  defaults: { level: 2, limit: 2, shards: 1, params: { max_new_tokens: 24, temperature: 0, top_p: 1, seed: 0 } },
} as unknown as LaunchOptions;

describe("the launch form's defaults", () => {
  it("a first run is a two-text sample of SmolLM2 at the benchmarked decoding", () => {
    const form = initialForm(options);
    expect(form.limit).toBe("2");
    expect(form.maxNewTokens).toBe("24");
    expect(form.suggested).toEqual([0]);
    expect(form.variants).toEqual([3]);
  });
});

describe("the request count and estimate before launch", () => {
  it("asks for the chosen gold, limit and models", () => {
    const form = initialForm(options);
    expect(previewQuery(form, options.suggested_models)).toBe("?gold_standard=7&limit=2&model=transformers%3ASmolLM2-135M-Instruct+%28Q4_1%29");
    expect(previewQuery({ ...form, limit: "", suggested: [0, 1] }, options.suggested_models)).toBe(
      "?gold_standard=7&model=transformers%3ASmolLM2-135M-Instruct+%28Q4_1%29&model=random%3A",
    );
    expect(previewQuery({ ...form, limit: "0" }, options.suggested_models)).toBeNull();
    expect(previewQuery({ ...form, goldStandard: null }, options.suggested_models)).toBeNull();
  });

  it("states the requests", () => {
    expect(requestsText({ texts: 2, requests: 6, estimates: [] }, 1)).toBe("Sends 6 requests (2 texts, one request per sentence) per model.");
    expect(requestsText({ texts: 200, requests: 957, estimates: [] }, 2)).toBe("Sends 957 requests (200 texts, one request per sentence) per model and variant: 1914 per model.");
  });

  it("estimates from this machine's measured speed, or says there is none yet", () => {
    const measured = { backend: "transformers", model: "S", seconds: 20, per_request_seconds: 2.5, load_seconds: 5, measured_by_run: 4 };
    expect(estimateText(measured, "SmolLM2", 1)).toBe("SmolLM2: about 20 s on this machine (measured: 2.50 s a request and a 5 s start-up and model load).");
    expect(estimateText({ ...measured, measured_by_run: null }, "SmolLM2", 1)).toBe(`SmolLM2: about 20 s (${TYPICAL}: 2.50 s a request and a 5 s start-up and model load).`);
    expect(estimateText({ ...measured, seconds: 1020, load_seconds: null }, "SmolLM2", 1)).toBe("SmolLM2: about 17 min 00 s on this machine (measured: 2.50 s a request).");
    expect(estimateText({ ...measured, seconds: null, per_request_seconds: null }, "SmolLM2", 1)).toBe(`SmolLM2: ${NO_ESTIMATE}.`);
    expect(NO_ESTIMATE).toBe("no estimate yet: first run of this model on this machine");
  });
});
