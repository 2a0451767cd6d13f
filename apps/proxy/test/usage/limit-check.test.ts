import { type TextBackend, type UsageStore, wrapBackend } from "@proxy/core/gateway";
import { createScriptedBackend } from "@proxy/core/testing";
import { describe, expect, it } from "vitest";
import { callerOf } from "../../src/http/auth.js";
import { checkKeyLimits, keyLimits, limitedKeys } from "../../src/usage/key-limits.js";

const KEY = "sk-unit-0123456789";
const owner = callerOf(KEY).owner;
const request = {
  model: "m",
  instructions: "",
  history: [],
  input: [],
  partition: owner,
  caller: callerOf(KEY),
};

const storeWith = (
  load: { minuteTokens: number; dayTokens: number; daySearches?: number },
  admit = true,
): UsageStore => ({
  recordUsage: async () => undefined,
  usage: async () => ({ data: [], hasMore: false }),
  usageTotals: () => Promise.reject(new Error("limit checks read no totals")),
  purgeUsageBefore: async () => 0,
  admitRequest: async () => admit,
  keyLoad: async () => ({ daySearches: 0, ...load }),
  purgeMinutesBefore: async () => 0,
});

const eventsOf = async (backend: TextBackend) => {
  const types: string[] = [];
  for await (const batch of backend.stream(request, { signal: new AbortController().signal }).batches())
    for (const event of batch) types.push(event.type);
  return types;
};

describe("the per-key limit check", () => {
  const noon = Date.UTC(2026, 10, 27, 12, 0, 30);

  it("says which limit and how long until its window ends", async () => {
    const key = { name: "k", limits: { rpm: 1, tpm: 100, tokensPerDay: 1000 } };
    const day = await checkKeyLimits(storeWith({ minuteTokens: 0, dayTokens: 1000 }), key, noon);
    expect(day).toMatchObject({
      kind: "rate_limited",
      code: "key_limit_exceeded",
      retryAfterSeconds: 12 * 3600 - 30,
    });
    const tpm = await checkKeyLimits(storeWith({ minuteTokens: 100, dayTokens: 0 }), key, noon);
    expect(tpm).toMatchObject({ retryAfterSeconds: 30, message: expect.stringContaining("tpm") });
    const rpm = await checkKeyLimits(storeWith({ minuteTokens: 0, dayTokens: 0 }, false), key, noon);
    expect(rpm).toMatchObject({ retryAfterSeconds: 30, message: expect.stringContaining("rpm") });
    expect(await checkKeyLimits(storeWith({ minuteTokens: 99, dayTokens: 999 }), key, noon)).toBeUndefined();
  });

  it("lets the turn run when the store cannot be read, and says so", async () => {
    const failing = {
      ...storeWith({ minuteTokens: 0, dayTokens: 0 }),
      keyLoad: () => Promise.reject(new Error("db down")),
    };
    const told: string[] = [];
    const backend = wrapBackend(
      createScriptedBackend([{ chunks: "ok" }]),
      keyLimits({
        store: failing,
        keys: limitedKeys([{ key: KEY, name: "k", limits: { tpm: 10 } }]),
        onStoreError: (error, key) => told.push(`${key}: ${(error as Error).message}`),
      }),
    );
    expect(await eventsOf(backend)).toContain("finish");
    expect(told).toEqual(["k: db down"]);
  });

  it("never reaches the backend for a refused turn", async () => {
    const scripted = createScriptedBackend([{ chunks: "ok" }]);
    const backend = wrapBackend(
      scripted,
      keyLimits({
        store: storeWith({ minuteTokens: 0, dayTokens: 5 }),
        keys: limitedKeys([{ key: KEY, name: "k", limits: { tokensPerDay: 5 } }]),
      }),
    );
    await expect(eventsOf(backend)).rejects.toMatchObject({ kind: "rate_limited" });
    expect(scripted.requests).toHaveLength(0);
  });

  it("limits the caller the turn carries, not whatever its cache partition says", async () => {
    const limit = () =>
      wrapBackend(
        createScriptedBackend([{ chunks: "ok" }]),
        keyLimits({
          store: storeWith({ minuteTokens: 0, dayTokens: 5 }),
          keys: limitedKeys([{ key: KEY, name: "k", limits: { tokensPerDay: 5 } }]),
        }),
      );
    const signal = new AbortController().signal;
    const run = async (backend: TextBackend, r: typeof request | Omit<typeof request, "caller">) => {
      for await (const _ of backend.stream(r, { signal }).batches()) {
        // drain
      }
    };
    const { caller: _, ...partitionOnly } = request;
    await expect(run(limit(), partitionOnly)).resolves.toBeUndefined();
    await expect(run(limit(), request)).rejects.toMatchObject({ code: "key_limit_exceeded" });
  });
});
