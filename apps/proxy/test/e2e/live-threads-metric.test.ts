import OpenAI from "openai";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type ScriptedResponse, startE2E } from "./e2e-gateway.js";

const KEY = "live-threads-key";
const model = (): ScriptedResponse => ({ text: "Hello again." });

/** The gauge's value in a Prometheus text exposition (unlabelled: the gateway serves codex alone). */
const liveThreads = async (url: string): Promise<number | undefined> => {
  const text = await (await fetch(`${url}/metrics`)).text();
  const line = /^proxy_codex_live_threads (\d+)$/m.exec(text);
  return line ? Number(line[1]) : undefined;
};

describe("/metrics counts the codex threads conversation continuity keeps alive", {
  timeout: 120_000,
}, () => {
  let e2e: Awaited<ReturnType<typeof startE2E>>;
  let openai: OpenAI;
  beforeAll(async () => {
    e2e = await startE2E(model, { PROXY_API_KEYS: KEY, PROXY_CODEX_WARM_THREADS: "0" });
    openai = new OpenAI({ baseURL: `${e2e.url}/v1`, apiKey: KEY, maxRetries: 0 });
  }, 60_000);
  afterAll(() => e2e?.close());

  it("proxy_codex_live_threads is 0 before any turn and at least 1 once a conversation's thread is kept", async () => {
    expect(await liveThreads(e2e.url)).toBe(0);
    const messages: OpenAI.ChatCompletionMessageParam[] = [{ role: "user", content: "hi" }];
    const first = await openai.chat.completions.create({ model: "e2e-model", messages });
    expect(await liveThreads(e2e.url)).toBeGreaterThanOrEqual(1);
    // The conversation's next request continues that thread: one conversation, still one thread.
    messages.push(first.choices[0]!.message, { role: "user", content: "and again" });
    await openai.chat.completions.create({ model: "e2e-model", messages });
    expect(await liveThreads(e2e.url)).toBe(1);
    expect(await (await fetch(`${e2e.url}/readyz`)).json()).toMatchObject({ liveThreads: 1 });
  });
});

describe("PROXY_CODEX_LIVE_THREAD_MAX_CHARS counts a native thread's tool list, which codex keeps for it", {
  timeout: 120_000,
}, () => {
  let e2e: Awaited<ReturnType<typeof startE2E>>;
  let openai: OpenAI;
  beforeAll(async () => {
    e2e = await startE2E(model, {
      PROXY_API_KEYS: KEY,
      PROXY_CODEX_WARM_THREADS: "0",
      PROXY_TOOL_MODE: "native",
      PROXY_CODEX_LIVE_THREAD_MAX_CHARS: "1000000",
    });
    openai = new OpenAI({ baseURL: `${e2e.url}/v1`, apiKey: KEY, maxRetries: 0 });
  }, 60_000);
  afterAll(() => e2e?.close());

  /** 60 tools of about 5,000 characters each: a 300 KB tool list. */
  const tools = (tag: string): OpenAI.ChatCompletionTool[] =>
    Array.from({ length: 60 }, (_, i) => ({
      type: "function",
      function: {
        name: `${tag}_tool_${i}`,
        description: `${tag} ${"what this tool does, at length. ".repeat(150)}`,
        parameters: { type: "object", properties: { input: { type: "string" } } },
      },
    }));

  it("five conversations with 300 KB of tools each: three threads are kept (1 MB of tool lists)", async () => {
    for (const tag of ["a", "b", "c", "d", "e"]) {
      const answer = await openai.chat.completions.create({
        model: "e2e-model",
        messages: [{ role: "user", content: `conversation ${tag}` }],
        tools: tools(tag),
      });
      expect(answer.choices[0]?.message.content).toBe("Hello again.");
    }
    // Before: all five were kept, 1.5 MB of tool lists over a 1,000,000-character bound.
    expect(await liveThreads(e2e.url)).toBe(3);
  });
});
