import { createRequire } from "node:module";
import { createScriptedBackend } from "@proxy/core/testing";
import { afterAll, describe, expect, it, vi } from "vitest";
import { gatewayOver, type ReliabilityGateway } from "../reliability/support.js";
import { postJson } from "./support.js";

// Loading o200k's rank table is a few hundred ms of synchronous work: it must never happen inside
// the first request that counts tokens (it held the loop 0.2–0.4 s there).
const ranksLoaded = () =>
  Object.keys(createRequire(import.meta.url).cache).some((path) => /bpeRanks[\\/]o200k_base/.test(path));

describe("the tokenizer loads at start-up, not on a request", () => {
  let g: ReliabilityGateway | undefined;
  afterAll(() => g?.close());

  it("the rank table is loaded a moment after start, before any request counts a token", async () => {
    // This file runs in a process of its own: nothing has loaded the table yet.
    expect(ranksLoaded()).toBe(false);
    g = await gatewayOver(createScriptedBackend(() => ({ chunks: ["ok"] })));
    // Not during the start: it made the gateway slower to become ready by as much.
    expect(ranksLoaded()).toBe(false);
    await vi.waitFor(() => expect(ranksLoaded()).toBe(true), { timeout: 5000, interval: 50 });
    const res = await postJson(`${g.url}/v1/messages/count_tokens`, {
      model: "m",
      messages: [{ role: "user", content: "hello there" }],
    });
    expect(res.status).toBe(200);
    expect(((await res.json()) as { input_tokens: number }).input_tokens).toBeGreaterThan(0);
  });
});
