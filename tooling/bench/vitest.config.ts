import { defineProject } from "vitest/config";

export default defineProject({
  resolve: { conditions: ["@proxy/source"] },
  ssr: { resolve: { conditions: ["@proxy/source"] } },
  test: { name: "bench", include: ["test/**/*.test.ts"] },
});
