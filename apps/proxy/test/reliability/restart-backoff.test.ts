import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type CodexGateway, chat, gatewayOverCodex, waitUntil } from "./support.js";

describe("codex restart backoff (real gateway + real codex)", { timeout: 60_000 }, () => {
  let g: CodexGateway;
  beforeAll(async () => {
    g = await gatewayOverCodex(() => ({ text: "ok" }));
  });
  afterAll(() => g?.close());

  const readyPids = () => g.logs.filter((l) => l.msg === "codex app-server ready").map((l) => Number(l.pid));
  const delays = () =>
    g.logs.filter((l) => l.msg === "codex app-server restart scheduled").map((l) => Number(l.delayMs));
  /** SIGKILLs the serving app-server and waits for its replacement; returns the ms that took. */
  const crash = async () => {
    const before = readyPids();
    const started = Date.now();
    process.kill(before.at(-1) as number, "SIGKILL");
    await waitUntil(() => readyPids().length > before.length, "the restarted app-server");
    return Date.now() - started;
  };

  it("grows while codex keeps dying, is back at its start after a served turn, and stays capped", async () => {
    await crash();
    await crash();
    await crash();
    expect(delays()).toEqual([250, 500, 1000]);
    const served = await chat(g.url, "are you back?");
    expect(served.status).toBe(200);
    const afterTurn = await crash();
    expect(delays().at(-1)).toBe(250);
    expect(afterTurn).toBeLessThan(2_000);
    for (const d of delays()) expect(d).toBeLessThanOrEqual(5_000);
  });
});
