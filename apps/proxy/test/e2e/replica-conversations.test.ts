import type OpenAI from "openai";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  cacheKeyOf,
  type Item,
  KEY_1,
  KEY_2,
  type Message,
  type RecordedRequest,
  type ReplicaCluster,
  replicaTurns,
  SECRET,
  type SpawnedGateway,
  shown,
  startReplicaCluster,
} from "./replica-support.js";

/**
 * Two gateways, each the built bin as the README starts it, on one throwaway PostgreSQL, sharing
 * conversations (PROXY_REPLICA_URL/SECRET), real codex behind each, one recording model provider.
 */
describe("replicas share conversations: one thread and one prompt_cache_key wherever a turn lands", {
  timeout: 180_000,
}, () => {
  let cluster: ReplicaCluster;
  let a: SpawnedGateway;
  let b: SpawnedGateway;
  const turn = (replica: SpawnedGateway, history: Message[], text: string, key = KEY_1) =>
    cluster.turn(replica, history, text, { key });
  const client = (replica: SpawnedGateway, key = KEY_1) => cluster.client(replica, key);
  const sentFor = (tag: string) => cluster.sentFor(tag);
  beforeAll(async () => {
    cluster = await startReplicaCluster();
    [a, b] = await Promise.all([cluster.startReplica(), cluster.startReplica()]);
  }, 120_000);
  afterAll(() => cluster?.close());

  it("an alternating conversation keeps one prompt_cache_key on every turn, each answer right", async () => {
    let history: Message[] = [];
    for (let i = 1; i <= 6; i++) {
      const replica = i % 2 === 1 ? a : b;
      const next = await turn(replica, history, `alt-${i} on ${i % 2 === 1 ? "a" : "b"}`);
      expect(next.content).toBe(`Echo: alt-${i} on ${i % 2 === 1 ? "a" : "b"}`);
      history = next.history;
    }
    const sent = sentFor("alt-");
    expect(sent).toHaveLength(6);
    expect(new Set(sent.map(cacheKeyOf)).size).toBe(1);
    // The model saw the whole conversation on the last turn, in order.
    expect(shown(sent.at(-1))).toEqual([
      "user:alt-1 on a",
      "assistant:Echo: alt-1 on a",
      "user:alt-2 on b",
      "assistant:Echo: alt-2 on b",
      "user:alt-3 on a",
      "assistant:Echo: alt-3 on a",
      "user:alt-4 on b",
      "assistant:Echo: alt-4 on b",
      "user:alt-5 on a",
      "assistant:Echo: alt-5 on a",
      "user:alt-6 on b",
    ]);
  });

  it("responses: a previous_response_id chain alternating replicas stays on one thread", async () => {
    const from = cluster.provider.requests.length;
    let previous: string | undefined;
    for (let i = 1; i <= 4; i++) {
      const replica = i % 2 === 1 ? a : b;
      const response = await client(replica).responses.create({
        model: "m",
        input: `resp-${i}`,
        ...(previous ? { previous_response_id: previous } : {}),
      });
      expect(response.output_text).toBe(`Echo: resp-${i}`);
      previous = response.id;
    }
    const sent = cluster.provider.requests.slice(from);
    expect(sent).toHaveLength(4);
    expect(new Set(sent.map(cacheKeyOf)).size).toBe(1);
    expect(shown(sent.at(-1))).toEqual([
      "user:resp-1",
      "assistant:Echo: resp-1",
      "user:resp-2",
      "assistant:Echo: resp-2",
      "user:resp-3",
      "assistant:Echo: resp-3",
      "user:resp-4",
    ]);
  });

  it("native mode: a tool call left open on one replica is answered from the other, on the same thread", async () => {
    const tools: OpenAI.Chat.Completions.ChatCompletionTool[] = [
      {
        type: "function",
        function: {
          name: "get_weather",
          parameters: { type: "object", properties: { city: { type: "string" } } },
        },
      },
    ];
    const native = { headers: { "x-proxy-tool-mode": "native" } };
    const ask = (replica: SpawnedGateway, messages: Message[]) =>
      client(replica).chat.completions.create({ model: "m", messages, tools }, native);
    const from = cluster.provider.requests.length;
    const messages: Message[] = [{ role: "user", content: "nat-1 weather in Paris?" }];
    const first = await ask(a, messages);
    const call = first.choices[0]?.message.tool_calls?.[0];
    expect(call?.type === "function" && call.function.name).toBe("get_weather");
    messages.push(first.choices[0]?.message as Message, {
      role: "tool",
      tool_call_id: call?.id ?? "",
      content: "sunny",
    });
    const second = await ask(b, messages); // codex's turn on a waits for this result
    expect(second.choices[0]?.message.content).toBe("The weather: sunny");
    messages.push(second.choices[0]?.message as Message, { role: "user", content: "nat-3 thanks" });
    const third = await ask(b, messages);
    expect(third.choices[0]?.message.content).toBe("Echo: nat-3 thanks");
    const sent = cluster.provider.requests.slice(from);
    expect(sent).toHaveLength(3);
    expect(new Set(sent.map(cacheKeyOf)).size).toBe(1);
    // The result went to codex's open call: the model saw the call and its output once each.
    const items = ((sent[1]?.body.input ?? []) as Item[]).filter((i) => i.type?.startsWith("function_call"));
    expect(items.map((i) => i.type)).toEqual(["function_call", "function_call_output"]);
  });

  it("the internal route refuses a call without the secret, with a forged one, and with an API key", async () => {
    const body = JSON.stringify({
      key: "k",
      heartbeatMs: 500,
      request: { model: "m", instructions: "", history: [], input: [] },
    });
    const post = (headers: Record<string, string>) =>
      fetch(`${a.url}/internal/turn`, {
        method: "POST",
        headers: { "content-type": "application/json", ...headers },
        body,
      });
    const refusals = await Promise.all([
      post({}),
      post({ "x-proxy-replica-secret": "forged-secret-0123456789abcdef" }),
      post({ "x-proxy-replica-secret": SECRET.slice(0, -1) }),
      post({ authorization: `Bearer ${KEY_1}` }),
      post({ authorization: `Bearer ${KEY_1}`, "x-proxy-replica-secret": KEY_1 }),
    ]);
    expect(refusals.map((r) => r.status)).toEqual([401, 401, 401, 401, 401]);
    // With the secret, a turn that does not derive the key it names is refused too.
    expect((await post({ "x-proxy-replica-secret": SECRET })).status).toBe(400);
  });

  it("another key cannot continue someone else's conversation through the other replica", async () => {
    const first = await turn(a, [], "iso-1 secret plum");
    // KEY_2 replays KEY_1's exact conversation on b: its own fresh thread, never KEY_1's.
    const other = await turn(b, first.history, "iso-2 from the other key", KEY_2);
    expect(other.content).toBe("Echo: iso-2 from the other key");
    // KEY_1 continues on b: forwarded to a's thread, still KEY_1's one key.
    const mine = await turn(b, first.history, "iso-3 mine again");
    expect(mine.content).toBe("Echo: iso-3 mine again");
    const [one, two, three] = [sentFor("iso-1"), sentFor("iso-2"), sentFor("iso-3")].map((s) => s[0]);
    expect(cacheKeyOf(two as RecordedRequest)).not.toBe(cacheKeyOf(one as RecordedRequest));
    expect(cacheKeyOf(three as RecordedRequest)).toBe(cacheKeyOf(one as RecordedRequest));
    // Each thread holds its own caller's turns only.
    expect(shown(three)).not.toContain("user:iso-2 from the other key");
  });

  it("the owner killed mid-conversation costs exactly one fresh thread and a right answer", async () => {
    const c = await cluster.startReplica();
    let history: Message[] = [];
    history = (await turn(c, history, "kill-1 remember the plum")).history; // c owns the thread
    history = (await turn(b, history, "kill-2 on b")).history; // forwarded to c
    process.kill(-(c.child.pid ?? 0), "SIGKILL"); // c and its codex, at once
    await c.exited;
    const before = await replicaTurns(b.url);
    const after = await turn(b, history, "kill-3 after the kill");
    const counted = await replicaTurns(b.url);
    expect(counted.owner_unavailable ?? 0).toBe((before.owner_unavailable ?? 0) + 1);
    expect(counted.forwarded).toBeGreaterThanOrEqual(3); // the alternating turns and kill-2
    expect(after.content).toBe("Echo: kill-3 after the kill");
    history = after.history;
    history = (await turn(a, history, "kill-4 on a")).history;
    history = (await turn(b, history, "kill-5 on b")).history;
    const keys = ["kill-1", "kill-2", "kill-3", "kill-4", "kill-5"].map((tag) =>
      cacheKeyOf(sentFor(tag)[0] as RecordedRequest),
    );
    expect(keys[1]).toBe(keys[0]);
    // One fresh thread after the kill, and that one kept on for the rest.
    expect(keys[2]).not.toBe(keys[0]);
    expect(keys.slice(3)).toEqual([keys[2], keys[2]]);
    // The fresh thread was given the whole conversation: the model still knows the plum.
    expect(shown(sentFor("kill-3")[0]).slice(0, 4)).toEqual([
      "user:kill-1 remember the plum",
      "assistant:Echo: kill-1 remember the plum",
      "user:kill-2 on b",
      "assistant:Echo: kill-2 on b",
    ]);
  });
});
