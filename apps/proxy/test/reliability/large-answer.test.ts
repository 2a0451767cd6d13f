import { createCodexBackend } from "@proxy/adapter-codex-appserver";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type CodexGateway, chat, chatStreamText, gatewayOverCodex } from "./support.js";

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

  it("finishes: codex's end-of-turn line (over the limit, it repeats the answer) is not dropped", async () => {
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

// 17 MiB of text in 16 KiB deltas, faster than the client below drains it.
const PIECE = 16 * 1024;
const huge = Array.from(
  { length: 17 * 64 },
  (_, i) => `${String(i).padStart(6, "0")}${"y".repeat(PIECE - 6)}`,
);

describe("a 17 MiB answer to a client that reads it (real gateway + real codex)", {
  timeout: 120_000,
}, () => {
  let g: CodexGateway;
  beforeAll(async () => {
    g = await gatewayOverCodex(() => ({ chunks: huge }), { config: { PROXY_REQUEST_TIMEOUT_MS: "60000" } });
  });
  afterAll(() => g?.close());

  it("streams whole: codex's output waits for the client instead of failing the turn", async () => {
    const res = await fetch(`${g.url}/v1/chat/completions`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({
        model: "m",
        stream: true,
        messages: [{ role: "user", content: "write a lot" }],
      }),
    });
    expect(res.status).toBe(200);
    // The client reads in bursts with pauses between them, as a busy one does.
    const reader = (res.body as ReadableStream<Uint8Array>).getReader();
    const decoder = new TextDecoder();
    let sse = "";
    for (let n = 0; ; n++) {
      const { value, done } = await reader.read();
      if (done) break;
      sse += decoder.decode(value, { stream: true });
      if (n % 64 === 0) await new Promise((r) => setTimeout(r, 5));
    }
    const { text, finish } = chatStreamText(sse);
    // Before: an error event after about 2 MiB, "the client stopped reading: more than 2097152 bytes
    // of backend events were waiting".
    expect(sse).not.toContain("stopped reading");
    expect(text.length).toBe(huge.length * PIECE);
    expect(text === huge.join("")).toBe(true);
    expect(finish).toBe("stop");
  });
});
