import type { Script } from "@proxy/core/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { RunningGateway } from "../../src/gateway.js";
import { ADMIN, adminGet, bothStores, gatewayWith } from "./support.js";

const LIMITED = "sk-limited-0123456789";
const OTHER = "sk-other-0123456789";
const KEYS = [
  { name: "limited", key: LIMITED, limits: { tokensPerDay: 500 } },
  { name: "other", key: OTHER },
];
/** 200 tokens a turn: a 500-token day allows three turns, the fourth is refused. */
const script: Script = () => ({
  chunks: "ok",
  usage: { inputTokens: 150, outputTokens: 50, totalTokens: 200 },
});

const LETTERS = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
/** Random letters: PostgreSQL cannot compress them under its index row limit (~2.7 KB). */
const randomName = (length: number) =>
  Array.from({ length }, () => LETTERS[Math.floor(Math.random() * LETTERS.length)]).join("");

const post = (url: string, path: string, key: string, body: object) =>
  fetch(`${url}${path}`, {
    method: "POST",
    headers: { authorization: `Bearer ${key}`, "x-goog-api-key": key, "content-type": "application/json" },
    body: JSON.stringify(body),
  });
const hi = [{ role: "user", content: "hi" }];
const contents = [{ role: "user", parts: [{ text: "hi" }] }];

/** One request per surface naming `model`; Gemini's generateContent names it in the path. */
const everySurface = (url: string, key: string, model: string) => [
  post(url, "/v1/chat/completions", key, { model, messages: hi }),
  post(url, "/v1/responses", key, { model, input: "hi" }),
  post(url, "/v1/messages", key, { model, max_tokens: 10, messages: hi }),
  post(url, `/v1beta/models/${model}:generateContent`, key, { contents }),
  post(url, "/v1/gemini", key, { model, input: "hi" }),
];

const { stores, stop } = bothStores("model-names");
afterAll(stop);

describe.each(stores)("model names over the bound, with usage in %s", { timeout: 120_000 }, (_, location) => {
  let gateway: RunningGateway;
  beforeAll(async () => {
    gateway = await gatewayWith(
      script,
      { PROXY_STORE: await location(), PROXY_ADMIN_KEY: ADMIN },
      { apiKeys: KEYS },
    );
  }, 60_000);
  afterAll(() => gateway?.shutdown("test done"));

  it("are a 400 naming `model` in each surface's own error shape", async () => {
    const [chat, responses, messages, gemini, geminiBody] = await Promise.all(
      everySurface(gateway.url, OTHER, randomName(3000)),
    );
    for (const res of [chat, responses, messages, gemini, geminiBody]) expect(res?.status).toBe(400);
    const tooLong =
      /string too long\. Expected a string with maximum length 256, but got a string with length 3000/;
    for (const res of [chat, responses])
      expect(await res?.json()).toMatchObject({
        error: { type: "invalid_request_error", param: "model", message: expect.stringMatching(tooLong) },
      });
    expect(await messages?.json()).toMatchObject({
      type: "error",
      error: { type: "invalid_request_error", message: expect.stringMatching(/'model'.*string too long/) },
    });
    for (const res of [gemini, geminiBody])
      expect(await res?.json()).toMatchObject({
        error: {
          code: 400,
          status: "INVALID_ARGUMENT",
          details: [{ fieldViolations: [{ field: "model", description: expect.stringMatching(tooLong) }] }],
        },
      });
  });

  it("a name of 256 characters is an ordinary model name", async () => {
    const answers = await Promise.all(everySurface(gateway.url, OTHER, randomName(256)));
    expect(answers.map((res) => res.status)).toEqual([200, 200, 200, 200, 200]);
  });

  it("leave every key's usage counting: the token-limited key is still stopped at its limit", async () => {
    for (let i = 0; i < 3; i++) await Promise.all(everySurface(gateway.url, OTHER, randomName(3000)));
    const statuses: number[] = [];
    for (let i = 0; i < 4; i++) {
      // PostgreSQL may read before the last turn's write lands (limits count written turns): the
      // admin read waits for this process's writes under way.
      await (await adminGet(gateway.url, "/admin/usage?key=limited")).body?.cancel();
      const res = await post(gateway.url, "/v1/chat/completions", LIMITED, { model: "m", messages: hi });
      statuses.push(res.status);
      await res.body?.cancel();
    }
    expect(statuses).toEqual([200, 200, 200, 429]);
    const usage = (await (await adminGet(gateway.url, "/admin/usage?key=limited")).json()) as {
      total: { requests: number; inputTokens: number };
    };
    expect(usage.total).toMatchObject({ requests: 4, inputTokens: 450 });
  });
});
