// The generation pages (Prolog-checked generation), loaded on demand as one chunk.
export { GenerationPage } from "./GenerationPage";
export { LaunchGenerationPage } from "./LaunchGenerationPage";
export { GenerationJobPage } from "./GenerationJobPage";
export { RulesPage } from "./RulesPage";
