import { defineConfig } from "vitest/config";

// One run, one summary: every package/app is a project with its own vitest.config.ts.
// apps/proxy/test-shipped runs the built artifact (no source condition); `npm test` builds first.
export default defineConfig({
  test: {
    projects: ["packages/*", "apps/*", "tooling/*", "apps/proxy/test-shipped"],
  },
});
