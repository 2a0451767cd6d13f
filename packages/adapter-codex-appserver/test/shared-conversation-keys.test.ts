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
