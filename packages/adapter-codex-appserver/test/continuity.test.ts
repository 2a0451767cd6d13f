import type { BackendRequest, PromptMessage, ToolSpec } from "@proxy/core";
import type { BackendEvent } from "@proxy/core/gateway";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { RecordedRequest } from "../src/testing/index.js";
import {
  assistantMessage,
  collect,
  nativeRequest,
  type RealHarness,
  request,
  startRealHarness,
  textOf,
  userMessage,
} from "./helpers.js";

type Item = {
  type?: string;
  role?: string;
  content?: Array<{ text?: string }>;
  call_id?: string;
  output?: unknown;
};

/** What the model provider was shown of the conversation: messages and tool items, in order. */
const shown = (r: RecordedRequest | undefined): string[] =>
  ((r?.body.input ?? []) as Item[]).flatMap((i) => {
    if (i.type === "message" && (i.role === "user" || i.role === "assistant"))
      return [`${i.role}:${(i.content ?? []).map((c) => c.text ?? "").join("")}`];
    if (i.type === "function_call") return [`call:${i.call_id}`];
    if (i.type === "function_call_output") return [`output:${i.call_id}=${String(i.output)}`];
    return [];
  });
const cacheKey = (r: RecordedRequest | undefined) => r?.body.prompt_cache_key;
const user = userMessage;
const assistant = assistantMessage;
const run = (h: RealHarness, req: BackendRequest) =>
  collect(h.backend.stream(req, { signal: new AbortController().signal }));

describe("conversation continuity (real binary)", { timeout: 90_000 }, () => {
  let h: RealHarness;
  beforeAll(async () => {
    h = await startRealHarness({ warmThreads: 0 });
  }, 60_000);
  afterAll(() => h?.close());

  it("a linear session keeps one thread: one prompt_cache_key, each item sent once, usage per turn", async () => {
    const from = h.provider.requests.length;
    h.provider.script([
      { text: "one", usage: { inputTokens: 100, outputTokens: 5 } },
      { text: "two", usage: { inputTokens: 120, outputTokens: 6, cachedInputTokens: 100 } },
      { text: "three", usage: { inputTokens: 140, outputTokens: 7, cachedInputTokens: 120 } },
    ]);
    const t1 = await run(h, request({ input: [{ type: "text", text: "q1" }], partition: "a" }));
    const h2 = [user("q1"), assistant("one")];
    const t2 = await run(h, request({ history: h2, input: [{ type: "text", text: "q2" }], partition: "a" }));
    const h3 = [...h2, user("q2"), assistant("two")];
    const t3 = await run(h, request({ history: h3, input: [{ type: "text", text: "q3" }], partition: "a" }));
    expect([textOf(t1), textOf(t2), textOf(t3)]).toEqual(["one", "two", "three"]);
    const sent = h.provider.requests.slice(from);
    expect(sent).toHaveLength(3);
    expect(new Set(sent.map(cacheKey)).size).toBe(1);
    expect(shown(sent[2])).toEqual(["user:q1", "assistant:one", "user:q2", "assistant:two", "user:q3"]);
    const usage = (events: BackendEvent[]) => events.find((e) => e.type === "usage");
    expect(usage(t3)).toMatchObject({
      usage: { inputTokens: 140, outputTokens: 7, totalTokens: 147, cachedInputTokens: 120 },
    });
    expect(h.backend.liveThreads().continued).toBeGreaterThanOrEqual(2);
  });

  it("an edited history starts a fresh thread that shows the model exactly the edited history", async () => {
    const from = h.provider.requests.length;
    h.provider.script([{ text: "first" }, { text: "second" }, { text: "after edit" }]);
    await run(h, request({ input: [{ type: "text", text: "e1" }], partition: "a" }));
    await run(
      h,
      request({
        history: [user("e1"), assistant("first")],
        input: [{ type: "text", text: "e2" }],
        partition: "a",
      }),
    );
    // The client regenerates: the model's "first" is replaced by its own text.
    await run(
      h,
      request({
        history: [user("e1"), assistant("EDITED")],
        input: [{ type: "text", text: "e2" }],
        partition: "a",
      }),
    );
    const sent = h.provider.requests.slice(from);
    expect(cacheKey(sent[1])).toBe(cacheKey(sent[0]));
    expect(cacheKey(sent[2])).not.toBe(cacheKey(sent[0]));
    expect(shown(sent[2])).toEqual(["user:e1", "assistant:EDITED", "user:e2"]);
  });

  it("another caller with the very same conversation never gets the thread", async () => {
    const from = h.provider.requests.length;
    h.provider.script([{ text: "mine" }, { text: "theirs" }]);
    await run(h, request({ input: [{ type: "text", text: "p1" }], partition: "caller-a" }));
    await run(
      h,
      request({
        history: [user("p1"), assistant("mine")],
        input: [{ type: "text", text: "p2" }],
        partition: "caller-b",
      }),
    );
    const sent = h.provider.requests.slice(from);
    expect(cacheKey(sent[1])).not.toBe(cacheKey(sent[0]));
    expect(shown(sent[1])).toEqual(["user:p1", "assistant:mine", "user:p2"]);
  });

  it("of two requests continuing one conversation at once, exactly one continues it", async () => {
    const from = h.provider.requests.length;
    h.provider.script([{ text: "base" }, { text: "x" }, { text: "x" }]);
    await run(h, request({ input: [{ type: "text", text: "c1" }], partition: "a" }));
    const next = request({
      history: [user("c1"), assistant("base")],
      input: [{ type: "text", text: "c2" }],
      partition: "a",
    });
    const both = await Promise.all([run(h, next), run(h, next)]);
    expect(both.map(textOf)).toEqual(["x", "x"]);
    const sent = h.provider.requests.slice(from);
    const keys = sent.map(cacheKey);
    expect(keys.slice(1).filter((k) => k === keys[0])).toHaveLength(1);
    // Both show the model the full conversation, each item once.
    for (const r of sent.slice(1)) expect(shown(r)).toEqual(["user:c1", "assistant:base", "user:c2"]);
  });
});

describe("native continuity: the tool call stays open for the client's result (real binary)", {
  timeout: 90_000,
}, () => {
  let h: RealHarness;
  beforeAll(async () => {
    h = await startRealHarness({ warmThreads: 0 });
  }, 60_000);
  afterAll(() => h?.close());
  const native = nativeRequest;

  it("answers codex's held call with the client's result: one key, each item once, nothing cancelled", async () => {
    const from = h.provider.requests.length;
    const call = {
      type: "function_call",
      id: "fc_1",
      call_id: "call_w1",
      name: "get_weather",
      arguments: '{"city":"Paris"}',
    };
    h.provider.script([{ items: [call] }, { text: "It is sunny." }, { text: "You're welcome." }]);
    const t1 = await run(h, native({ input: [{ type: "text", text: "weather?" }] }));
    expect(t1.at(-1)).toMatchObject({ type: "finish", finish: { reason: "tool_calls" } });
    expect(h.backend.pendingToolRequests()).toBe(1);
    const h2: PromptMessage[] = [
      user("weather?"),
      {
        role: "assistant",
        toolCalls: [{ callId: "call_w1", name: "get_weather", arguments: '{"city":"Paris"}' }],
      },
      { role: "tool", callId: "call_w1", output: "Sunny, 22C" },
    ];
    const t2 = await run(h, native({ history: h2, input: [] }));
    expect(textOf(t2)).toBe("It is sunny.");
    expect(h.backend.pendingToolRequests()).toBe(0);
    const h3 = [...h2, assistant("It is sunny.")];
    const t3 = await run(h, native({ history: h3, input: [{ type: "text", text: "thanks" }] }));
    expect(textOf(t3)).toBe("You're welcome.");
    const sent = h.provider.requests.slice(from);
    expect(sent).toHaveLength(3);
    expect(new Set(sent.map(cacheKey)).size).toBe(1);
    expect(shown(sent[2])).toEqual([
      "user:weather?",
      "call:call_w1",
      "output:call_w1=Sunny, 22C",
      "assistant:It is sunny.",
      "user:thanks",
    ]);
    expect(JSON.stringify(sent[2]?.body.input)).not.toMatch(/cancelled|turn_aborted/);
  });

  it("a tool result for a call the thread does not wait on starts a fresh thread", async () => {
    const from = h.provider.requests.length;
    const call = {
      type: "function_call",
      id: "fc_2",
      call_id: "call_w2",
      name: "get_weather",
      arguments: '{"city":"Oslo"}',
    };
    h.provider.script([{ items: [call] }, { text: "Cold." }]);
    await run(h, native({ input: [{ type: "text", text: "oslo?" }] }));
    const other: PromptMessage[] = [
      user("oslo?"),
      {
        role: "assistant",
        toolCalls: [{ callId: "call_w2", name: "get_weather", arguments: '{"city":"Rome"}' }],
      },
      { role: "tool", callId: "call_w2", output: "Warm" },
    ];
    await run(h, native({ history: other, input: [] }));
    const sent = h.provider.requests.slice(from);
    expect(cacheKey(sent[1])).not.toBe(cacheKey(sent[0]));
    expect(shown(sent[1])).toEqual(["user:oslo?", "call:call_w2", "output:call_w2=Warm"]);
  });
});

describe("continuity bounds (real binary)", { timeout: 90_000 }, () => {
  let h: RealHarness;
  beforeAll(async () => {
    h = await startRealHarness({ warmThreads: 0, liveThreads: 1, liveThreadIdleMs: 1_500 });
  }, 60_000);
  afterAll(() => h?.close());

  it("keeps at most liveThreads per app-server and lets idle ones go", async () => {
    const from = h.provider.requests.length;
    h.provider.script(() => ({ text: "ok" }));
    await run(h, request({ input: [{ type: "text", text: "A" }], partition: "a" }));
    await run(h, request({ input: [{ type: "text", text: "B" }], partition: "a" }));
    expect(h.backend.liveThreads().live).toBe(1);
    // A's thread was let go for B's: continuing A starts afresh; continuing B keeps B's key.
    await run(
      h,
      request({
        history: [user("A"), assistant("ok")],
        input: [{ type: "text", text: "A2" }],
        partition: "a",
      }),
    );
    const sent = h.provider.requests.slice(from);
    expect(cacheKey(sent[2])).not.toBe(cacheKey(sent[0]));
    await new Promise((r) => setTimeout(r, 3_500));
    expect(h.backend.liveThreads().live).toBe(0);
    await run(
      h,
      request({
        history: [user("A"), assistant("ok"), user("A2"), assistant("ok")],
        input: [{ type: "text", text: "A3" }],
        partition: "a",
      }),
    );
    expect(cacheKey(h.provider.requests.at(-1))).not.toBe(cacheKey(sent[2]));
  });
});

describe("continuity bounds count a native thread's tool list (real binary)", { timeout: 90_000 }, () => {
  let h: RealHarness;
  beforeAll(async () => {
    h = await startRealHarness({ warmThreads: 0, liveThreads: 32, liveThreadMaxChars: 1_000_000 });
  }, 60_000);
  afterAll(() => h?.close());

  /** 60 tools of about 5,000 characters each: a 300 KB tool list, which codex keeps for the thread. */
  const tools = (tag: string): ToolSpec[] =>
    Array.from({ length: 60 }, (_, i) => ({
      name: `${tag}_tool_${i}`,
      description: `${tag} ${"what this tool does, at length. ".repeat(150)}`,
      parameters: { type: "object", properties: { input: { type: "string" } } },
      strict: false,
    }));
  const ask = (tag: string, history: PromptMessage[] = [], text = "go") =>
    request({
      tools: { tools: tools(tag), choice: { type: "auto" }, parallel: true },
      history,
      input: [{ type: "text", text }],
      partition: tag,
    });

  it("threads whose tool lists pass liveThreadMaxChars together are let go, the least recent first", async () => {
    h.provider.script(() => ({ text: "ok" }));
    const chars = JSON.stringify(tools("a")).length;
    expect(chars).toBeGreaterThan(290_000);
    for (const tag of ["a", "b", "c", "d", "e"]) await run(h, ask(tag));
    // The conversations are a few characters each: before, all five threads (1.5 MB of tools) were kept.
    expect(h.backend.liveThreads().live).toBe(Math.floor(1_000_000 / chars));
    // The latest conversation continues its thread; the first one's was let go.
    const keyOf = (tag: string) =>
      cacheKey(h.provider.requests.findLast((r) => JSON.stringify(r.body.tools).includes(`${tag}_tool_0`)));
    const before = { a: keyOf("a"), e: keyOf("e") };
    await run(h, ask("e", [user("go"), assistant("ok")], "again"));
    await run(h, ask("a", [user("go"), assistant("ok")], "again"));
    expect(keyOf("e")).toBe(before.e);
    expect(keyOf("a")).not.toBe(before.a);
  });
});
