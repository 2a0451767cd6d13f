import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import Anthropic from "@anthropic-ai/sdk";
import type { Script } from "@proxy/core/testing";
import OpenAI from "openai";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { RunningGateway } from "../../src/gateway.js";
import { gatewayWith, sharedPostgres } from "./support.js";

const RPM = "sk-rpm-0123456789";
const TPM = "sk-tpm-0123456789";
const DAILY = "sk-daily-0123456789";
const FREE = "sk-free-0123456789";
const RESTART = "sk-restart-0123456789";
const KEYS = [
  { name: "rpm", key: RPM, limits: { rpm: 2 } },
  { name: "tpm", key: TPM, limits: { tpm: 150 } },
  { name: "daily", key: DAILY, limits: { tokensPerDay: 200 } },
  { name: "free", key: FREE },
  { name: "restart", key: RESTART, limits: { rpm: 2 } },
];
/** 110 tokens a turn: input 100 (20 of them cached) + output 10. */
const script: Script = () => ({
  chunks: "ok",
  usage: { inputTokens: 100, cachedInputTokens: 20, outputTokens: 10, totalTokens: 110 },
});

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
/** Minute windows are fixed: start a per-minute check early in a minute, so it ends within it. */
const freshMinute = async () => {
  const into = Date.now() % 60_000;
  if (into > 40_000) await sleep(60_000 - into + 200);
};

const chat = (gateway: RunningGateway, key: string) =>
  fetch(`${gateway.url}/v1/chat/completions`, {
    method: "POST",
    headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
    body: JSON.stringify({ model: "m", messages: [{ role: "user", content: "hi" }] }),
  });

const dirs: string[] = [];
const postgres = sharedPostgres();
afterAll(async () => {
  await postgres.stop();
  for (const dir of dirs) await rm(dir, { recursive: true, force: true });
});

describe("per-key limits, with the state in a SQLite file", { timeout: 120_000 }, () => {
  let store: string;
  let gateway: RunningGateway;
  beforeAll(async () => {
    const dir = await mkdtemp(join(tmpdir(), "proxy-limits-"));
    dirs.push(dir);
    store = `sqlite:${join(dir, "gateway.sqlite")}`;
    gateway = await gatewayWith(script, { PROXY_STORE: store }, { apiKeys: KEYS });
  }, 60_000);
  afterAll(() => gateway?.shutdown("test done"));

  it("rpm: the request over the limit is a 429 with Retry-After in each surface's shape, streams too", async () => {
    await freshMinute();
    expect((await chat(gateway, RPM)).status).toBe(200);
    expect((await chat(gateway, RPM)).status).toBe(200);
    const refused = await chat(gateway, RPM);
    expect(refused.status).toBe(429);
    const retryAfter = Number(refused.headers.get("retry-after"));
    expect(retryAfter).toBeGreaterThanOrEqual(1);
    expect(retryAfter).toBeLessThanOrEqual(60);
    expect(await refused.json()).toMatchObject({
      error: {
        type: "rate_limit_error",
        code: "key_limit_exceeded",
        message: expect.stringContaining("rpm"),
      },
    });

    const anthropic = new Anthropic({ baseURL: gateway.url, apiKey: RPM, maxRetries: 0 });
    const streamed = anthropic.messages.create({
      model: "m",
      max_tokens: 10,
      stream: true,
      messages: [{ role: "user", content: "hi" }],
    });
    await expect(streamed).rejects.toMatchObject({
      status: 429,
      error: { error: { type: "rate_limit_error" } },
    });

    const gemini = await fetch(`${gateway.url}/v1beta/models/m:streamGenerateContent?alt=sse`, {
      method: "POST",
      headers: { "x-goog-api-key": RPM, "content-type": "application/json" },
      body: JSON.stringify({ contents: [{ role: "user", parts: [{ text: "hi" }] }] }),
    });
    expect(gemini.status).toBe(429);
    expect(gemini.headers.get("retry-after")).toMatch(/^\d+$/);
    expect(await gemini.json()).toMatchObject({ error: { code: 429, status: "RESOURCE_EXHAUSTED" } });

    // Another key is not affected.
    expect((await chat(gateway, FREE)).status).toBe(200);
    const metrics = await (await fetch(`${gateway.url}/metrics`)).text();
    expect(metrics).toContain('proxy_key_limited_total{key="rpm",limit="rpm"} 3');
  });

  it("tpm: tokens used this minute (input with cached, plus output) stop the next turn", async () => {
    await freshMinute();
    const openai = new OpenAI({ baseURL: `${gateway.url}/v1`, apiKey: TPM, maxRetries: 0 });
    const ask = () =>
      openai.chat.completions.create({ model: "m", messages: [{ role: "user", content: "hi" }] });
    await ask(); // 110 tokens
    await ask(); // 220: over 150 once recorded
    await expect(ask()).rejects.toMatchObject({ status: 429, code: "key_limit_exceeded" });
  });

  it("tokensPerDay: refused until the next UTC midnight, and still after a restart", async () => {
    expect((await chat(gateway, DAILY)).status).toBe(200);
    expect((await chat(gateway, DAILY)).status).toBe(200);
    const check = async (g: RunningGateway) => {
      const refused = await chat(g, DAILY);
      expect(refused.status).toBe(429);
      const toMidnight = (86_400_000 - (Date.now() % 86_400_000)) / 1000;
      expect(Number(refused.headers.get("retry-after"))).toBeGreaterThan(toMidnight - 5);
      expect(Number(refused.headers.get("retry-after"))).toBeLessThanOrEqual(Math.ceil(toMidnight) + 1);
    };
    await check(gateway);
    await gateway.shutdown("restart");
    gateway = await gatewayWith(script, { PROXY_STORE: store }, { apiKeys: KEYS });
    await check(gateway);
    expect((await chat(gateway, FREE)).status).toBe(200);
  });

  it("rpm survives a restart within the minute", async () => {
    await freshMinute();
    expect((await chat(gateway, RESTART)).status).toBe(200);
    expect((await chat(gateway, RESTART)).status).toBe(200);
    await gateway.shutdown("restart");
    gateway = await gatewayWith(script, { PROXY_STORE: store }, { apiKeys: KEYS });
    expect((await chat(gateway, RESTART)).status).toBe(429);
  });
});

describe("per-key limits across two replicas sharing one PostgreSQL", { timeout: 120_000 }, () => {
  let a: RunningGateway;
  let b: RunningGateway;
  beforeAll(async () => {
    const store = await postgres.database("limits");
    const keys = [{ name: "team", key: RPM, limits: { rpm: 3, tokensPerDay: 1000 } }];
    [a, b] = await Promise.all([
      gatewayWith(script, { PROXY_STORE: store }, { apiKeys: keys }),
      gatewayWith(script, { PROXY_STORE: store }, { apiKeys: keys }),
    ]);
  }, 90_000);
  afterAll(async () => {
    await a?.shutdown("test done");
    await b?.shutdown("test done");
  });

  it("a burst over both replicas admits exactly rpm requests", async () => {
    await freshMinute();
    const statuses = await Promise.all(
      Array.from({ length: 8 }, (_, i) => chat(i % 2 === 0 ? a : b, RPM).then((r) => r.status)),
    );
    expect(statuses.filter((s) => s === 200)).toHaveLength(3);
    expect(statuses.filter((s) => s === 429)).toHaveLength(5);
  });
});
