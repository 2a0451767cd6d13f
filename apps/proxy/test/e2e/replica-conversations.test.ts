import {
  makeCodexHome,
  type RecordedRequest,
  startScriptedModelProvider,
} from "@proxy/adapter-codex-appserver/testing";
import { type PostgresServer, startPostgresServer } from "@proxy/adapter-store-sql/testing";
import OpenAI from "openai";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { freePort } from "../support/process-probes.js";
import { BUILT_BIN, type SpawnedGateway, spawnGateway } from "../support/spawn-gateway.js";
import { lastUserText } from "./e2e-gateway.js";

const KEY_1 = "sk-replica-conversations-one";
const KEY_2 = "sk-replica-conversations-two";
const SECRET = "replica-secret-0123456789abcdef";

type Message = OpenAI.Chat.Completions.ChatCompletionMessageParam;

/** A replica's `proxy_replica_turns_total` by outcome. */
const replicaTurns = async (url: string) => {
  const text = await (await fetch(`${url}/metrics`)).text();
  const counts: Record<string, number> = {};
  for (const m of text.matchAll(/^proxy_replica_turns_total\{outcome="(\w+)"\} (\d+)$/gm))
    counts[m[1] as string] = Number(m[2]);
  return counts;
};

const cacheKeyOf = (r: RecordedRequest) => String(r.body.prompt_cache_key);
/** The conversation the model provider was shown, as `role:text` lines. */
const shown = (r: RecordedRequest | undefined): string[] =>
  ((r?.body.input ?? []) as Array<{ type?: string; role?: string; content?: Array<{ text?: string }> }>)
    .filter((i) => i.type === "message" && (i.role === "user" || i.role === "assistant"))
    .map((i) => `${i.role}:${(i.content ?? []).map((c) => c.text ?? "").join("")}`);

type Item = { type?: string; call_id?: string; output?: unknown };
/**
 * The scripted model: a tool's output is answered with it, a question about the weather (with tools
 * offered) gets a native call, anything else an echo of the last user text.
 */
const model = (r: RecordedRequest) => {
  const last = ((r.body.input ?? []) as Item[]).at(-1);
  if (last?.type === "function_call_output") return { text: `The weather: ${String(last.output)}` };
  const ask = lastUserText(r);
  if (/weather/.test(ask) && ((r.body.tools ?? []) as unknown[]).length > 0)
    return {
      items: [
        {
          type: "function_call",
          id: `fc_${r.index}`,
          call_id: `call_${r.index}`,
          name: "get_weather",
          arguments: '{"city":"Paris"}',
        },
      ],
    };
  return { text: `Echo: ${ask}` };
};

/**
 * Two gateways, each the built bin as the README starts it, on one throwaway PostgreSQL, sharing
 * conversations (PROXY_REPLICA_URL/SECRET), real codex behind each, one recording model provider.
 */
describe("replicas share conversations: one thread and one prompt_cache_key wherever a turn lands", {
  timeout: 180_000,
}, () => {
  let postgres: PostgresServer;
  let storeUrl: string;
  let provider: Awaited<ReturnType<typeof startScriptedModelProvider>>;
  const homes: Array<Awaited<ReturnType<typeof makeCodexHome>>> = [];
  const replicas: SpawnedGateway[] = [];

  const startReplica = async () => {
    const home = await makeCodexHome(provider.url);
    homes.push(home);
    const port = await freePort();
    const replica = await spawnGateway(
      {
        PORT: String(port),
        CODEX_HOME: home.path,
        PROXY_STORE: storeUrl,
        PROXY_API_KEYS: `${KEY_1},${KEY_2}`,
        PROXY_TOOL_MODE: "prompt",
        PROXY_REPLICA_URL: `http://127.0.0.1:${port}`,
        PROXY_REPLICA_SECRET: SECRET,
        PROXY_REPLICA_TIMEOUT_MS: "2000",
      },
      { command: [process.execPath, BUILT_BIN], detached: true },
    );
    replicas.push(replica);
    return replica;
  };
  const client = (replica: SpawnedGateway, key = KEY_1) =>
    new OpenAI({ baseURL: `${replica.url}/v1`, apiKey: key, maxRetries: 0 });

  /** One turn of a chat conversation on `replica`: the history grows by the question and its answer. */
  const turn = async (replica: SpawnedGateway, history: Message[], text: string, key = KEY_1) => {
    const messages: Message[] = [...history, { role: "user", content: text }];
    const answer = await client(replica, key).chat.completions.create({ model: "m", messages });
    const content = answer.choices[0]?.message.content ?? "";
    return { history: [...messages, { role: "assistant", content } as Message], content };
  };
  /** The provider requests whose last user text starts with `tag`. */
  const sentFor = (tag: string) => provider.requests.filter((r) => lastUserText(r).startsWith(tag));

  let a: SpawnedGateway;
  let b: SpawnedGateway;
  beforeAll(async () => {
    postgres = await startPostgresServer();
    storeUrl = await postgres.createDatabase("replica_conversations");
    provider = await startScriptedModelProvider(model);
    [a, b] = await Promise.all([startReplica(), startReplica()]);
  }, 120_000);
  afterAll(async () => {
    for (const replica of replicas) {
      if (replica.child.exitCode === null && replica.child.signalCode === null) {
        replica.child.kill("SIGTERM");
        await replica.exited;
      }
    }
    await provider?.close();
    for (const home of homes) await home.cleanup();
    await postgres?.stop();
  });

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
    const from = provider.requests.length;
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
    const sent = provider.requests.slice(from);
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
    const from = provider.requests.length;
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
    const sent = provider.requests.slice(from);
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
    const c = await startReplica();
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
