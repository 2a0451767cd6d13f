import { defineConfig } from "vitest/config";

// One run, one summary: every package/app is a project with its own vitest.config.ts.
export default defineConfig({
  test: {
    projects: ["packages/*", "apps/*", "tooling/*"],
  },
});
