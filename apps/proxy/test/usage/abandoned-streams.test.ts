import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type CodexGateway, gatewayOverCodex } from "../reliability/support.js";
import { ADMIN, adminGet } from "./support.js";

const KEY = "sk-abandon-0123456789";
/** About 2,600 tokens of prompt: two such turns are over the key's 4,000-token day. */
const WORDS = Array.from({ length: 2000 }, (_, i) => ["alpha", "beta", "gamma", "delta"][i % 4]).join(" ");
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Streams a chat turn, reads its first bytes, then hangs up; the status it got. */
const streamAndLeave = async (url: string, prompt: string): Promise<number> => {
  const controller = new AbortController();
  const res = await fetch(`${url}/v1/chat/completions`, {
    method: "POST",
    headers: { authorization: `Bearer ${KEY}`, "content-type": "application/json" },
    body: JSON.stringify({ model: "m", stream: true, messages: [{ role: "user", content: prompt }] }),
    signal: controller.signal,
  });
  if (res.status !== 200) {
    await res.body?.cancel();
    return res.status;
  }
  const reader = res.body?.getReader();
  // Up to the model's first words, then away.
  for (let text = ""; !text.includes("Working"); ) {
    const chunk = await reader?.read();
    if (chunk === undefined || chunk.done) break;
    text += new TextDecoder().decode(chunk.value);
  }
  controller.abort();
  return res.status;
};

interface Usage {
  total: { requests: number; inputTokens: number; outputTokens: number; errors: number };
}

describe("a stream the client leaves after its first bytes (real gateway + real codex)", {
  timeout: 120_000,
}, () => {
  let g: CodexGateway;
  beforeAll(async () => {
    // The model starts answering, then never finishes: codex reports no usage for the turn.
    g = await gatewayOverCodex(() => ({ chunks: ["Working on it"], hang: true }), {
      config: {
        PROXY_API_KEYS: JSON.stringify([{ name: "abandoner", key: KEY, limits: { tokensPerDay: 4000 } }]),
        PROXY_ADMIN_KEY: ADMIN,
        PROXY_STORE: "memory",
      },
    });
  });
  afterAll(() => g?.close());

  it("counts what the backend read and wrote, so the key's daily limit stops it", async () => {
    const statuses: number[] = [];
    for (let i = 0; i < 6; i++) {
      statuses.push(await streamAndLeave(g.url, `${i} ${WORDS}`));
      // The abandoned turn ends (codex interrupted) and its usage is written before the next check.
      for (let wait = 0; wait < 50; wait++) {
        const usage = (await (await adminGet(g.url, "/admin/usage?key=abandoner")).json()) as Usage;
        if (usage.total.requests >= statuses.filter((s) => s === 200).length) break;
        await sleep(100);
      }
    }
    expect(statuses.slice(0, 2)).toEqual([200, 200]);
    expect(statuses.slice(2)).toEqual([429, 429, 429, 429]);
    const usage = (await (await adminGet(g.url, "/admin/usage?key=abandoner")).json()) as Usage;
    // Each abandoned turn: its prompt (2,000 words and the gateway's instructions) and a few words out.
    expect(usage.total.inputTokens).toBeGreaterThan(2 * 2000);
    expect(usage.total.inputTokens).toBeLessThan(2 * 6000);
    expect(usage.total.outputTokens).toBeGreaterThan(0);
  });
});
