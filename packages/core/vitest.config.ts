import { defineProject } from "vitest/config";

export default defineProject({
  resolve: { conditions: ["@proxy/source"] },
  ssr: { resolve: { conditions: ["@proxy/source"] } },
  test: { name: "core", include: ["test/**/*.test.ts"] },
});
