import { createCodexBackend } from "@proxy/adapter-codex-appserver";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type CodexGateway, chat, gatewayOverCodex } from "./support.js";

// The app-server line limit scaled down 16× (16 MiB → 1 MiB) so the test moves 1.5 MB, not 17 MB.
const LIMIT = 1024 * 1024;
const answer = Array.from({ length: 1500 }, (_, i) => `${String(i).padStart(4, "0")}${"x".repeat(996)}`);

describe("an answer longer than the app-server line limit (real gateway + real codex)", {
  timeout: 60_000,
}, () => {
  let g: CodexGateway;
  beforeAll(async () => {
    g = await gatewayOverCodex(() => ({ chunks: answer }), {
      config: { PROXY_REQUEST_TIMEOUT_MS: "20000" },
      backend: (env) => createCodexBackend({ env, maxLineLength: LIMIT }),
    });
  });
  afterAll(() => g?.close());

  it("finishes: codex's final item and turn lines (each over the limit) are not dropped", async () => {
    const res = await chat(g.url, "write a lot");
    expect(res.status).toBe(200);
    const body = (await res.json()) as {
      choices: Array<{ message: { content: string }; finish_reason: string }>;
    };
    expect(body.choices[0]?.finish_reason).toBe("stop");
    expect(body.choices[0]?.message.content).toBe(answer.join(""));
    expect(answer.join("").length).toBeGreaterThan(LIMIT);
  });
});
