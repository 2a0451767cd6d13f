import OpenAI from "openai";
import { afterEach, describe, expect, it } from "vitest";
import { lastUserText, type RecordedRequest, startE2E, toolCallText } from "./e2e-gateway.js";

const slow = { chunks: Array.from({ length: 12 }, (_, i) => `part${i} `), delayMs: 150 };

const model = (request: RecordedRequest) => {
  const input = lastUserText(request);
  const wanted = /please call (tool_\d+)/.exec(input);
  if (wanted?.[1]) return { text: toolCallText(wanted[1], { n: Number(wanted[1].slice(5)) }) };
  if (input.includes("slowly")) return slow;
  return { text: "ok" };
};

const waitUntil = async (check: () => boolean | Promise<boolean>, what: string, ms = 30_000) => {
  const until = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > until) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
};

describe("end to end faults (real codex app-server)", { timeout: 60_000 }, () => {
  const cleanups: Array<() => Promise<void>> = [];
  afterEach(async () => {
    for (const c of cleanups.splice(0)) await c();
  });
  const start = async (env: Record<string, string> = {}) => {
    const e2e = await startE2E(model, env);
    cleanups.push(() => e2e.close());
    return {
      ...e2e,
      client: new OpenAI({
        baseURL: `${e2e.url}/v1`,
        apiKey: env.PROXY_API_KEYS ?? "sk-none",
        maxRetries: 0,
      }),
    };
  };

  it("an app-server killed mid-stream ends the stream with a clean error; the next request is served", async () => {
    const e2e = await start();
    const stream = await e2e.client.chat.completions.create({
      model: "m",
      messages: [{ role: "user", content: "answer slowly" }],
      stream: true,
    });
    const seen: string[] = [];
    const failure = (async () => {
      for await (const chunk of stream) {
        seen.push(chunk.choices[0]?.delta.content ?? "");
        if (seen.join("").includes("part1")) {
          const ready = e2e.logs.filter((l) => l.msg === "codex app-server ready").at(-1);
          process.kill(Number(ready?.pid), "SIGKILL");
        }
      }
    })();
    await expect(failure).rejects.toThrow(/app-server|backend|codex/i);
    await waitUntil(
      async () => (await fetch(`${e2e.url}/readyz`)).status === 200,
      "the restarted app-server",
    );
    const next = await e2e.client.chat.completions.create({
      model: "m",
      messages: [{ role: "user", content: "hello again" }],
    });
    expect(next.choices[0]?.message.content).toBe("ok");
    expect(await (await fetch(`${e2e.url}/metrics`)).text()).toMatch(/proxy_backend_restarts 1/);
  });

  it("a client that disconnects interrupts the turn: the model provider sees its connection close", async () => {
    const e2e = await start();
    const controller = new AbortController();
    const stream = await e2e.client.chat.completions.create(
      { model: "m", messages: [{ role: "user", content: "answer slowly please" }], stream: true },
      { signal: controller.signal },
    );
    try {
      for await (const chunk of stream)
        if (chunk.choices[0]?.delta.content?.includes("part1")) controller.abort();
    } catch {
      // the SDK may or may not throw on its own abort; either way the connection is gone
    }
    expect(controller.signal.aborted).toBe(true);
    const upstream = await e2e.provider.waitFor(
      (r) => r.disconnected && lastUserText(r).includes("answer slowly please"),
    );
    expect(upstream.disconnected).toBe(true);
    await waitUntil(
      async () => ((await (await fetch(`${e2e.url}/readyz`)).json()) as { inFlight: number }).inFlight === 0,
      "the turn to end",
    );
  });

  it("50 concurrent requests with distinct tools get their own calls back (no cross-talk)", async () => {
    const e2e = await start();
    const results = await Promise.all(
      Array.from({ length: 50 }, (_, n) =>
        e2e.client.chat.completions.create({
          model: "m",
          messages: [{ role: "user", content: `please call tool_${n}` }],
          tools: [
            {
              type: "function",
              function: {
                name: `tool_${n}`,
                parameters: { type: "object", properties: { n: { type: "integer" } } },
              },
            },
          ],
        }),
      ),
    );
    results.forEach((res, n) => {
      const call = res.choices[0]?.message.tool_calls?.[0];
      expect(call?.type === "function" && call.function).toEqual({
        name: `tool_${n}`,
        arguments: JSON.stringify({ n }),
      });
    });
  }, 180_000);

  it("overload answers 429 with Retry-After; auth is enforced end to end", async () => {
    const e2e = await start({
      PROXY_MAX_IN_FLIGHT: "1",
      PROXY_MAX_QUEUE: "0",
      PROXY_API_KEYS: "sk-e2e-secret-key",
    });
    const anonymous = await fetch(`${e2e.url}/v1/models`);
    expect(anonymous.status).toBe(401);
    const busy = await e2e.client.chat.completions.create({
      model: "m",
      messages: [{ role: "user", content: "answer slowly" }],
      stream: true,
    });
    const iterator = busy[Symbol.asyncIterator]();
    await iterator.next();
    const res = await fetch(`${e2e.url}/v1/chat/completions`, {
      method: "POST",
      headers: { "content-type": "application/json", authorization: "Bearer sk-e2e-secret-key" },
      body: JSON.stringify({ model: "m", messages: [{ role: "user", content: "hi" }] }),
    });
    expect(res.status).toBe(429);
    expect(Number(res.headers.get("retry-after"))).toBeGreaterThan(0);
    expect(await res.json()).toMatchObject({
      error: { code: expect.any(String), message: expect.any(String) },
    });
    for (let r = await iterator.next(); !r.done; r = await iterator.next());
  });
});
