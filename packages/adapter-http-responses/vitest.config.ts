import { defineProject } from "vitest/config";

export default defineProject({
  resolve: { conditions: ["@proxy/source"] },
  ssr: { resolve: { conditions: ["@proxy/source"] } },
  test: { name: "adapter-http-responses", include: ["test/**/*.test.ts"] },
});
