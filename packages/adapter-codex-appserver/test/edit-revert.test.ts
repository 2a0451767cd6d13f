import { readdir } from "node:fs/promises";
import { join } from "node:path";
import type { BackendRequest } from "@proxy/core";
import type { BackendEvent } from "@proxy/core/gateway";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { RecordedRequest } from "../src/testing/index.js";
import {
  assistantMessage,
  collect,
  type RealHarness,
  request,
  startRealHarness,
  textOf,
  userMessage,
} from "./helpers.js";

type Item = { type?: string; role?: string; content?: Array<{ text?: string }>; call_id?: string };

/** What the model provider was shown of the conversation: messages and tool calls, in order. */
const shown = (r: RecordedRequest | undefined): string[] =>
  ((r?.body.input ?? []) as Item[]).flatMap((i) => {
    if (i.type === "message" && (i.role === "user" || i.role === "assistant"))
      return [`${i.role}:${(i.content ?? []).map((c) => c.text ?? "").join("")}`];
    if (i.type === "function_call") return [`call:${i.call_id}`];
    if (i.type === "function_call_output") return [`output:${i.call_id}`];
    return [];
  });
const cacheKey = (r: RecordedRequest | undefined) => r?.body.prompt_cache_key;
const user = userMessage;
const assistant = assistantMessage;
const ask = (text: string) => [{ type: "text" as const, text }];
const run = (h: RealHarness, req: BackendRequest) =>
  collect(h.backend.stream(req, { signal: new AbortController().signal }));
const usageOf = (events: BackendEvent[]) => events.find((e) => e.type === "usage");

/** Rollout files codex wrote under the harness's CODEX_HOME/sessions. */
const rollouts = async (h: RealHarness): Promise<string[]> =>
  (await readdir(join(h.home.path, "sessions"), { recursive: true }).catch(() => [])).filter((f) =>
    String(f).endsWith(".jsonl"),
  );
const until = async (check: () => Promise<boolean> | boolean, ms: number) => {
  const end = Date.now() + ms;
  while (!(await check()) && Date.now() < end) await new Promise((r) => setTimeout(r, 100));
};

/** What the provider is shown of turns 1–2 of `threeTurns`. */
const TWO_TURNS = ["user:q1", "assistant:one", "user:q2", "assistant:two"];

/** Turns 1–3 of one conversation ("a", "b", "c"), on the caller `partition`. */
const threeTurns = async (h: RealHarness, partition: string) => {
  h.provider.script([{ text: "one" }, { text: "two" }, { text: "three" }]);
  await run(h, request({ input: ask("q1"), partition }));
  const h2 = [user("q1"), assistant("one")];
  await run(h, request({ history: h2, input: ask("q2"), partition }));
  const h3 = [...h2, user("q2"), assistant("two")];
  await run(h, request({ history: h3, input: ask("q3"), partition }));
  return { h2, h3 };
};

describe("edits keep the thread: durable threads reverted (real binary)", { timeout: 90_000 }, () => {
  let h: RealHarness;
  beforeAll(async () => {
    h = await startRealHarness({ durableThreads: true, warmThreads: 0 });
  }, 60_000);
  afterAll(() => h?.close());

  it("turn 3 edited: one prompt_cache_key, the model shown exactly the edited history, its own usage", async () => {
    const from = h.provider.requests.length;
    const { h3 } = await threeTurns(h, "edit");
    h.provider.script([{ text: "three, edited", usage: { inputTokens: 90, outputTokens: 4 } }]);
    const edited = await run(h, request({ history: h3, input: ask("q3 edited"), partition: "edit" }));
    expect(textOf(edited)).toBe("three, edited");
    const sent = h.provider.requests.slice(from);
    expect(sent).toHaveLength(4);
    expect(new Set(sent.map(cacheKey)).size).toBe(1);
    expect(shown(sent[3])).toEqual([...TWO_TURNS, "user:q3 edited"]);
    // codex rolls its usage total back with the turns: the edited turn reports only its own.
    expect(usageOf(edited)).toMatchObject({ usage: { inputTokens: 90, outputTokens: 4, totalTokens: 94 } });
  });

  it("a regenerate (the same last message resent) reruns it on the same key, shown once", async () => {
    const from = h.provider.requests.length;
    const { h3 } = await threeTurns(h, "regen");
    h.provider.script([{ text: "three again" }, { text: "four" }]);
    await run(h, request({ history: h3, input: ask("q3"), partition: "regen" }));
    // …and the regenerated branch goes on as any conversation does.
    const h4 = [...h3, user("q3"), assistant("three again")];
    await run(h, request({ history: h4, input: ask("q4"), partition: "regen" }));
    const sent = h.provider.requests.slice(from);
    expect(new Set(sent.map(cacheKey)).size).toBe(1);
    expect(shown(sent[3])).toEqual([...TWO_TURNS, "user:q3"]);
    expect(shown(sent[4])).toEqual([...shown(sent[3]), "assistant:three again", "user:q4"]);
  });

  it("an older turn edited (turn 2 of 3) reverts that far; the abandoned branch resent gets exactly its own history", async () => {
    const from = h.provider.requests.length;
    const { h2, h3 } = await threeTurns(h, "older");
    h.provider.script([{ text: "two, edited" }, { text: "four" }]);
    await run(h, request({ history: h2, input: ask("q2 edited"), partition: "older" }));
    // The client goes back to the branch it left: it gets exactly that branch (the thread reverted
    // to the turn both share and the branch's own turns put back; the edit is gone from it).
    const abandoned = [...h3, user("q3"), assistant("three")];
    await run(h, request({ history: abandoned, input: ask("q4"), partition: "older" }));
    const sent = h.provider.requests.slice(from);
    expect(cacheKey(sent[3])).toBe(cacheKey(sent[0]));
    expect(shown(sent[3])).toEqual(["user:q1", "assistant:one", "user:q2 edited"]);
    expect(cacheKey(sent[4])).toBe(cacheKey(sent[0]));
    expect(shown(sent[4])).toEqual([...TWO_TURNS, "user:q3", "assistant:three", "user:q4"]);
    expect(JSON.stringify(sent[4]?.body.input)).not.toContain("q2 edited");
  });

  it("the first turn of a thread started with injected history edited: the history stays, only the turn goes", async () => {
    const from = h.provider.requests.length;
    h.provider.script([{ text: "late" }, { text: "late, edited" }]);
    // Another caller's conversation: a fresh thread, its history injected before its first turn.
    const history = [user("q1"), assistant("one"), user("q2"), assistant("two")];
    await run(h, request({ history, input: ask("q3"), partition: "injected" }));
    await run(h, request({ history, input: ask("q3 edited"), partition: "injected" }));
    const sent = h.provider.requests.slice(from);
    expect(cacheKey(sent[1])).toBe(cacheKey(sent[0]));
    expect(shown(sent[1])).toEqual([...TWO_TURNS, "user:q3 edited"]);
  });

  it("a new conversation of the same caller never takes a live one's thread (its first message alone is no revert point)", async () => {
    const from = h.provider.requests.length;
    const { h3 } = await threeTurns(h, "parallel");
    h.provider.script([{ text: "new chat" }, { text: "four" }]);
    await run(h, request({ input: ask("q1 of another chat"), partition: "parallel" }));
    const h4 = [...h3, user("q3"), assistant("three")];
    await run(h, request({ history: h4, input: ask("q4"), partition: "parallel" }));
    const sent = h.provider.requests.slice(from);
    expect(cacheKey(sent[3])).not.toBe(cacheKey(sent[0]));
    expect(shown(sent[3])).toEqual(["user:q1 of another chat"]);
    expect(cacheKey(sent[4])).toBe(cacheKey(sent[0]));
    expect(shown(sent[4])).toEqual([...TWO_TURNS, "user:q3", "assistant:three", "user:q4"]);
  });

  it("an edit of the model's first answer is no revert point (the request never came through it): a fresh thread", async () => {
    const from = h.provider.requests.length;
    const { h3 } = await threeTurns(h, "rewrite");
    h.provider.script([{ text: "x" }]);
    const rewritten = [user("q1"), assistant("ONE"), ...h3.slice(2)];
    await run(h, request({ history: rewritten, input: ask("q3"), partition: "rewrite" }));
    const sent = h.provider.requests.slice(from);
    expect(cacheKey(sent[3])).not.toBe(cacheKey(sent[0]));
    expect(shown(sent[3])).toEqual(["user:q1", "assistant:ONE", "user:q2", "assistant:two", "user:q3"]);
  });

  it("an edit of the model's later answer replaces its turn: the edited answer shown, on the same key", async () => {
    const from = h.provider.requests.length;
    const { h3 } = await threeTurns(h, "rewrite-later");
    h.provider.script([{ text: "x" }]);
    const rewritten = [...h3.slice(0, 3), assistant("TWO")];
    await run(h, request({ history: rewritten, input: ask("q3"), partition: "rewrite-later" }));
    const sent = h.provider.requests.slice(from);
    expect(cacheKey(sent[3])).toBe(cacheKey(sent[0]));
    expect(shown(sent[3])).toEqual(["user:q1", "assistant:one", "user:q2", "assistant:TWO", "user:q3"]);
  });

  it("another caller's identical edit never gets the thread", async () => {
    const from = h.provider.requests.length;
    const { h3 } = await threeTurns(h, "owner");
    h.provider.script([{ text: "x" }]);
    await run(h, request({ history: h3, input: ask("q3 edited"), partition: "intruder" }));
    const sent = h.provider.requests.slice(from);
    expect(cacheKey(sent[3])).not.toBe(cacheKey(sent[0]));
  });
});

describe("kept edits off (the default): an edit starts a fresh thread", { timeout: 90_000 }, () => {
  let h: RealHarness;
  beforeAll(async () => {
    h = await startRealHarness({ warmThreads: 0 });
  }, 60_000);
  afterAll(() => h?.close());

  it("turn 3 edited: a new prompt_cache_key, the whole edited history resent, nothing on disk", async () => {
    const from = h.provider.requests.length;
    const { h3 } = await threeTurns(h, "off");
    h.provider.script([{ text: "x" }]);
    await run(h, request({ history: h3, input: ask("q3 edited"), partition: "off" }));
    const sent = h.provider.requests.slice(from);
    expect(cacheKey(sent[2])).toBe(cacheKey(sent[0]));
    expect(cacheKey(sent[3])).not.toBe(cacheKey(sent[0]));
    expect(shown(sent[3])).toEqual([...TWO_TURNS, "user:q3 edited"]);
    expect(await rollouts(h)).toEqual([]);
  });
});

describe("durable threads are deleted when let go (real binary)", { timeout: 90_000 }, () => {
  let h: RealHarness;
  beforeAll(async () => {
    h = await startRealHarness({ durableThreads: true, liveThreadIdleMs: 1_000 });
  }, 60_000);
  afterAll(() => h?.close());

  it("no rollout file is left under CODEX_HOME/sessions once the live threads are let go", async () => {
    const { h3 } = await threeTurns(h, "gone");
    h.provider.script(() => ({ text: "edited" }));
    await run(h, request({ history: h3, input: ask("q3 edited"), partition: "gone" }));
    // Threads that were never kept (another caller's, one per request) are deleted at once.
    await run(h, request({ input: ask("one-off"), partition: "other" }));
    expect((await rollouts(h)).length).toBeGreaterThan(0); // durable: codex did write them
    await until(() => h.backend.liveThreads().live === 0, 10_000);
    await until(async () => (await rollouts(h)).length === 0, 10_000);
    expect(h.backend.liveThreads().live).toBe(0);
    expect(await rollouts(h)).toEqual([]);
  });
});

describe("durable threads are deleted at shutdown (real binary)", { timeout: 90_000 }, () => {
  it("a conversation still live when the backend closes leaves no rollout file", async () => {
    const h = await startRealHarness({ durableThreads: true, warmThreads: 0 });
    try {
      await threeTurns(h, "shutdown");
      expect(h.backend.liveThreads().live).toBe(1);
      expect((await rollouts(h)).length).toBeGreaterThan(0);
      await h.backend.close();
      expect(await rollouts(h)).toEqual([]);
    } finally {
      await h.provider.close();
      await h.home.cleanup();
    }
  });
});
