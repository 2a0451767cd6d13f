import type { BackendRequest, PromptMessage } from "@proxy/core";
import type { BackendEvent } from "@proxy/core/gateway";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { RecordedRequest } from "../src/testing/index.js";
import {
  assistantMessage as assistant,
  collect,
  nativeRequest as native,
  type RealHarness,
  startRealHarness,
  userMessage as user,
} from "./helpers.js";

type Item = {
  type?: string;
  role?: string;
  content?: Array<{ text?: string }>;
  call_id?: string;
  output?: string;
};

/** What the model provider was shown of the conversation: messages, calls and their outputs, in order. */
const shown = (r: RecordedRequest | undefined): string[] =>
  ((r?.body.input ?? []) as Item[]).flatMap((i) => {
    if (i.type === "message" && (i.role === "user" || i.role === "assistant"))
      return [`${i.role}:${(i.content ?? []).map((c) => c.text ?? "").join("")}`];
    if (i.type === "function_call") return [`call:${i.call_id}`];
    if (i.type === "function_call_output") return [`output:${i.call_id}=${i.output}`];
    return [];
  });
const cacheKey = (r: RecordedRequest | undefined) => r?.body.prompt_cache_key;
const ask = (text: string) => [{ type: "text" as const, text }];
const run = (h: RealHarness, req: BackendRequest) =>
  collect(h.backend.stream(req, { signal: new AbortController().signal }));
const callsOf = (events: BackendEvent[]) =>
  events.flatMap((e) => (e.type === "tool-call-end" ? [e.callId] : []));
const call = (id: string) => ({
  type: "function_call",
  id: `fc_${id}`,
  call_id: id,
  name: "get_weather",
  arguments: '{"city":"Paris"}',
});
const calls = (...ids: string[]): PromptMessage => ({
  role: "assistant",
  toolCalls: ids.map((callId) => ({ callId, name: "get_weather", arguments: '{"city":"Paris"}' })),
});
const result = (callId: string, output: string): PromptMessage => ({ role: "tool", callId, output });
/** Nothing of a turn codex ended at held calls (its cancelled outputs, its abort marker) shown. */
const NO_ABORTED_TURN = /turn_aborted|cancelled before receiving/;

/**
 * In native mode a codex turn spans a whole tool loop, so a regenerate or edit inside it (after a
 * tool result) replaces the end of that turn: the thread is reverted to before it, the client's
 * items of the loop are put back as a fresh thread gets them, and the turn starts over (real codex).
 */
describe("edits keep the thread in native tool mode (real binary)", { timeout: 90_000 }, () => {
  let h: RealHarness;
  beforeAll(async () => {
    h = await startRealHarness({ durableThreads: true, warmThreads: 0 });
  }, 60_000);
  afterAll(() => h?.close());

  /** Turn 1 "hi" → "hello"; turn 2 "weather?" → call `id` → its result → "Sunny.". */
  const toolLoop = async (id: string) => {
    h.provider.script([{ text: "hello" }, { items: [call(id)] }, { text: "Sunny." }]);
    await run(h, native({ input: ask("hi") }));
    const prefix = [user("hi"), assistant("hello")];
    await run(h, native({ history: prefix, input: ask("weather?") }));
    const loop = [...prefix, user("weather?"), calls(id), result(id, "22C")];
    await run(h, native({ history: loop, input: [] }));
    return loop;
  };

  it("a tool loop's answer regenerated after its result: one key, the loop shown once, the old answer gone", async () => {
    const from = h.provider.requests.length;
    const loop = await toolLoop("r1");
    h.provider.script([
      { text: "Sunny again.", usage: { inputTokens: 70, outputTokens: 3 } },
      { text: "Bye." },
    ]);
    const regenerated = await run(h, native({ history: loop, input: [] }));
    expect(regenerated.find((e) => e.type === "usage")).toMatchObject({
      usage: { inputTokens: 70, outputTokens: 3 },
    });
    // The regenerated branch goes on as any conversation does.
    await run(h, native({ history: [...loop, assistant("Sunny again.")], input: ask("thanks") }));
    const sent = h.provider.requests.slice(from);
    expect(sent).toHaveLength(5);
    expect(new Set(sent.map(cacheKey)).size).toBe(1);
    const edited = ["user:hi", "assistant:hello", "user:weather?", "call:r1", "output:r1=22C"];
    expect(shown(sent[3])).toEqual(edited);
    expect(shown(sent[4])).toEqual([...edited, "assistant:Sunny again.", "user:thanks"]);
  });

  it("a changed tool result replaces the loop's end on the same key", async () => {
    const from = h.provider.requests.length;
    const loop = await toolLoop("r2");
    h.provider.script([{ text: "Cold." }]);
    await run(h, native({ history: [...loop.slice(0, -1), result("r2", "-5C")], input: [] }));
    const sent = h.provider.requests.slice(from);
    expect(new Set(sent.map(cacheKey)).size).toBe(1);
    expect(shown(sent[3])).toEqual([
      "user:hi",
      "assistant:hello",
      "user:weather?",
      "call:r2",
      "output:r2=-5C",
    ]);
  });

  it("a step regenerated while the loop is open at its next call: the open turn ended and reverted, nothing of it shown", async () => {
    const from = h.provider.requests.length;
    h.provider.script([
      { items: [call("o1")] },
      { items: [call("o2")] },
      { items: [call("o3")] },
      { text: "Done." },
    ]);
    await run(h, native({ input: ask("plan a trip") }));
    const step = [user("plan a trip"), calls("o1"), result("o1", "22C")];
    expect(callsOf(await run(h, native({ history: step, input: [] })))).toEqual(["o2"]);
    expect(h.backend.pendingToolRequests()).toBe(1);
    // The client regenerates the step that called o2: the same request again.
    expect(callsOf(await run(h, native({ history: step, input: [] })))).toEqual(["o3"]);
    expect(h.backend.pendingToolRequests()).toBe(1); // o2's held request refused, o3's held
    // …and answers the new call: codex's turn goes on.
    await run(h, native({ history: [...step, calls("o3"), result("o3", "booked")], input: [] }));
    const sent = h.provider.requests.slice(from);
    expect(sent).toHaveLength(4);
    expect(new Set(sent.map(cacheKey)).size).toBe(1);
    expect(shown(sent[2])).toEqual(["user:plan a trip", "call:o1", "output:o1=22C"]);
    expect(shown(sent[3])).toEqual([...shown(sent[2]), "call:o3", "output:o3=booked"]);
    for (const r of sent) expect(JSON.stringify(r.body.input)).not.toMatch(NO_ABORTED_TURN);
    expect(h.backend.pendingToolRequests()).toBe(0);
  });

  it("the abandoned branch sent again gets exactly its own history", async () => {
    const from = h.provider.requests.length;
    h.provider.script([
      { items: [call("a1")] },
      { items: [call("a2")] },
      { items: [call("a3")] },
      { text: "A." },
    ]);
    await run(h, native({ input: ask("branch") }));
    const step = [user("branch"), calls("a1"), result("a1", "1")];
    await run(h, native({ history: step, input: [] })); // calls a2
    await run(h, native({ history: step, input: [] })); // regenerated: calls a3
    // The client goes back to the branch that called a2, with a2's result.
    const abandoned = [...step, calls("a2"), result("a2", "2")];
    await run(h, native({ history: abandoned, input: [] }));
    const sent = h.provider.requests.slice(from);
    expect(sent).toHaveLength(4);
    expect(shown(sent[3])).toEqual(["user:branch", "call:a1", "output:a1=1", "call:a2", "output:a2=2"]);
    expect(JSON.stringify(sent[3]?.body.input)).not.toMatch(/"a3"|turn_aborted|cancelled before/);
  });

  it("the conversation's first turn regenerated after its result (it began at the root): the same key", async () => {
    const from = h.provider.requests.length;
    h.provider.script([{ items: [call("f1")] }, { text: "Sunny." }, { text: "Still sunny." }]);
    await run(h, native({ input: ask("weather first?") }));
    const loop = [user("weather first?"), calls("f1"), result("f1", "22C")];
    await run(h, native({ history: loop, input: [] }));
    await run(h, native({ history: loop, input: [] }));
    const sent = h.provider.requests.slice(from);
    expect(new Set(sent.map(cacheKey)).size).toBe(1);
    expect(shown(sent[2])).toEqual(["user:weather first?", "call:f1", "output:f1=22C"]);
  });

  it("mid-call history (one of two parallel calls answered) never reverts: a fresh thread with exactly it", async () => {
    const from = h.provider.requests.length;
    h.provider.script([{ items: [call("p1"), call("p2")] }, { text: "Half." }]);
    await run(h, native({ input: ask("two cities?") }));
    expect(h.backend.pendingToolRequests()).toBe(2);
    const half = [user("two cities?"), calls("p1", "p2"), result("p1", "22C")];
    await run(h, native({ history: half, input: [] }));
    const sent = h.provider.requests.slice(from);
    expect(cacheKey(sent[1])).not.toBe(cacheKey(sent[0]));
    // What a fresh thread makes of it: codex itself marks the unanswered call "aborted".
    expect(shown(sent[1]).slice(0, 3)).toEqual(["user:two cities?", "call:p1", "call:p2"]);
    expect(shown(sent[1]).slice(3).sort()).toEqual(["output:p1=22C", "output:p2=aborted"]);
  });

  it("a turn that called a tool and finished is reverted whole when the message after it is edited", async () => {
    const from = h.provider.requests.length;
    h.provider.script([{ items: [call("c1")] }, { text: "Sunny." }, { text: "Bye." }, { text: "Hi." }]);
    await run(h, native({ input: ask("weather?") }));
    const h2 = [user("weather?"), calls("c1"), result("c1", "22C")];
    await run(h, native({ history: h2, input: [] }));
    const h3 = [...h2, assistant("Sunny.")];
    await run(h, native({ history: h3, input: ask("thanks") }));
    await run(h, native({ history: h3, input: ask("hello") }));
    const sent = h.provider.requests.slice(from);
    expect(new Set(sent.map(cacheKey)).size).toBe(1);
    expect(shown(sent[3])).toEqual([
      "user:weather?",
      "call:c1",
      "output:c1=22C",
      "assistant:Sunny.",
      "user:hello",
    ]);
  });

  it("a new conversation of the same caller never takes a thread left open at tool calls", async () => {
    const from = h.provider.requests.length;
    h.provider.script([{ items: [call("c2")] }, { text: "Other." }]);
    await run(h, native({ input: ask("weather in Paris?") }));
    const pending = h.backend.pendingToolRequests();
    await run(h, native({ input: ask("weather in Rome?") }));
    const sent = h.provider.requests.slice(from);
    expect(cacheKey(sent[1])).not.toBe(cacheKey(sent[0]));
    expect(shown(sent[1])).toEqual(["user:weather in Rome?"]);
    expect(h.backend.pendingToolRequests()).toBe(pending); // the other conversation's call still held
  });
});
