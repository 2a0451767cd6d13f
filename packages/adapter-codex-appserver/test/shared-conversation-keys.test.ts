import type { BackendRequest } from "@proxy/core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  assistantMessage,
  collect,
  type RealHarness,
  request,
  startRealHarness,
  userMessage,
} from "./helpers.js";

/** What a gateway's replicas rely on: two backends (two processes' temp dirs) derive one key. */
describe("conversation keys across backends (real binary)", { timeout: 90_000 }, () => {
  let one: RealHarness;
  let two: RealHarness;
  beforeAll(async () => {
    [one, two] = await Promise.all([
      startRealHarness({ warmThreads: 0 }),
      startRealHarness({ warmThreads: 0 }),
    ]);
  }, 60_000);
  afterAll(async () => {
    await one?.close();
    await two?.close();
  });

  it("are the same on both for one caller, differ for another, and are told as threads come and go", async () => {
    const told: Array<[string, boolean]> = [];
    const unwatch = one.backend.watchConversations((key, live) => told.push([key, live]));
    one.provider.script([{ text: "one" }, { text: "two" }]);
    const first: BackendRequest = request({ input: [{ type: "text", text: "q1" }], partition: "a" });
    await collect(one.backend.stream(first, { signal: new AbortController().signal }));
    const next = request({
      history: [userMessage("q1"), assistantMessage("one")],
      input: [{ type: "text", text: "q2" }],
      partition: "a",
    });
    const keys = await one.backend.conversationKeys(next);
    expect(keys).toHaveLength(3);
    expect(await two.backend.conversationKeys(next)).toEqual(keys);
    expect(await one.backend.conversationKeys({ ...next, partition: "b" })).not.toContain(keys.at(-1));
    expect(await one.backend.conversationKeys(first)).toEqual([]);
    // The first turn's thread was kept at the key its continuation derives.
    expect(told).toEqual([[keys.at(-1), true]]);
    await collect(one.backend.stream(next, { signal: new AbortController().signal }));
    expect(told.slice(1, 2)).toEqual([[keys.at(-1), false]]); // taken by the continuation
    expect(told.at(-1)?.[1]).toBe(true); // and kept again at its next key
    unwatch();
  });
});

/**
 * With kept edits a replica can take an edit forwarded to it: where each turn of a live durable
 * thread began is told as continuable too (not the conversation's start: no edit reverts there).
 */
describe("conversation keys of a durable thread's turns (real binary)", { timeout: 90_000 }, () => {
  let durable: RealHarness;
  let closed = false;
  beforeAll(async () => {
    durable = await startRealHarness({ warmThreads: 0, durableThreads: true });
  }, 60_000);
  afterAll(() => (closed ? undefined : durable?.close()));

  it("are told as their thread is parked, taken by an edit and let go", async () => {
    const live = new Set<string>();
    const told: Array<[string, boolean]> = [];
    const unwatch = durable.backend.watchConversations((key, isLive) => {
      told.push([key, isLive]);
      if (isLive) live.add(key);
      else live.delete(key);
    });
    const run = (r: BackendRequest) =>
      collect(durable.backend.stream(r, { signal: new AbortController().signal }));
    durable.provider.script([{ text: "one" }, { text: "two" }, { text: "three" }, { text: "two, edited" }]);
    const h2 = [userMessage("q1"), assistantMessage("one")];
    const h3 = [...h2, userMessage("q2"), assistantMessage("two")];
    const ask = (text: string) => [{ type: "text" as const, text }];
    await run(request({ input: ask("q1"), partition: "d" }));
    await run(request({ history: h2, input: ask("q2"), partition: "d" }));
    await run(request({ history: h3, input: ask("q3"), partition: "d" }));
    const after3 = await durable.backend.conversationKeys(
      request({
        history: [...h3, userMessage("q3"), assistantMessage("three")],
        input: ask("q4"),
        partition: "d",
      }),
    );
    // The live conversation (after turn 3) and where turns 2 and 3 began; never the root.
    expect([...live].sort()).toEqual([after3[2], after3[4], after3[6]].sort());
    expect(told.some(([key]) => key === after3[0])).toBe(false);
    // Turn 2 edited: turn 3's beginning and the old conversation go; turn 2's beginning stays.
    await run(request({ history: h2, input: ask("q2 edited"), partition: "d" }));
    expect(live.has(after3[2] as string)).toBe(true);
    expect(live.has(after3[4] as string)).toBe(false);
    expect(live.has(after3[6] as string)).toBe(false);
    expect(live.size).toBe(2);
    // Each key was told live once per park, never twice in a row.
    const last = new Map<string, boolean>();
    for (const [key, isLive] of told) {
      expect(last.get(key)).not.toBe(isLive);
      last.set(key, isLive);
    }
    closed = true;
    await durable.close(); // lets every thread go
    expect(live.size).toBe(0);
    unwatch();
  });
});
