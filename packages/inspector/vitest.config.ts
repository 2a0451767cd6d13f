import { defineProject } from "vitest/config";

export default defineProject({
  resolve: { conditions: ["@proxy/source"] },
  ssr: { resolve: { conditions: ["@proxy/source"] } },
  test: {
    name: "inspector",
    testTimeout: 30_000,
    hookTimeout: 60_000,
    include: ["test/**/*.test.ts"],
  },
});
