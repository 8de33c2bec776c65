import { defineConfig } from "vitest/config";

// Django serves the build: index.html through a view, assets through WhiteNoise at /static/.
export default defineConfig({
  base: "/static/",
  build: {
    outDir: "dist",
    emptyOutDir: true,
    target: "es2022",
  },
  oxc: {
    jsx: { runtime: "automatic", importSource: "preact" },
  },
  server: {
    proxy: { "/api": "http://127.0.0.1:8000" },
  },
  test: {
    include: ["src/**/*.test.ts"],
    environment: "node",
  },
});
