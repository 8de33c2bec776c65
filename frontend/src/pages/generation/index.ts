// The generation pages (Prolog-checked generation, issue 15), loaded on demand as one chunk.
export { GenerationPage } from "./GenerationPage";
export { LaunchGenerationPage } from "./LaunchGenerationPage";
export { GenerationJobPage } from "./GenerationJobPage";
export { RulesPage } from "./RulesPage";
