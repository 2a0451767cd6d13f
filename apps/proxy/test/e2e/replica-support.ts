import {
  makeCodexHome,
  type RecordedRequest,
  startScriptedModelProvider,
} from "@proxy/adapter-codex-appserver/testing";
import { type PostgresServer, startPostgresServer } from "@proxy/adapter-store-sql/testing";
import OpenAI from "openai";
import { freePort } from "../support/process-probes.js";
import { BUILT_BIN, type SpawnedGateway, spawnGateway } from "../support/spawn-gateway.js";
import { lastUserText } from "./e2e-gateway.js";

export const KEY_1 = "sk-replica-conversations-one";
export const KEY_2 = "sk-replica-conversations-two";
export const SECRET = "replica-secret-0123456789abcdef";

export type Message = OpenAI.Chat.Completions.ChatCompletionMessageParam;
export type { RecordedRequest, SpawnedGateway };

/** A replica's `proxy_replica_turns_total` by outcome. */
export const replicaTurns = async (url: string) => {
  const text = await (await fetch(`${url}/metrics`)).text();
  const counts: Record<string, number> = {};
  for (const m of text.matchAll(/^proxy_replica_turns_total\{outcome="(\w+)"\} (\d+)$/gm))
    counts[m[1] as string] = Number(m[2]);
  return counts;
};

export const cacheKeyOf = (r: RecordedRequest | undefined) => String(r?.body.prompt_cache_key);
/** The conversation the model provider was shown, as `role:text` lines. */
export const shown = (r: RecordedRequest | undefined): string[] =>
  ((r?.body.input ?? []) as Array<{ type?: string; role?: string; content?: Array<{ text?: string }> }>)
    .filter((i) => i.type === "message" && (i.role === "user" || i.role === "assistant"))
    .map((i) => `${i.role}:${(i.content ?? []).map((c) => c.text ?? "").join("")}`);

export type Item = { type?: string; call_id?: string; output?: unknown };
/**
 * The scripted model: a tool's output is answered with it, a question about the weather (with tools
 * offered) gets a native call, anything else an echo of the last user text (with the request's
 * number when it asks for one with `#`, so a regenerated answer differs from the first).
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
  return { text: ask.includes("#") ? `Echo: ${ask} (${r.index})` : `Echo: ${ask}` };
};

/**
 * Gateways, each the built bin as the README starts it, on one throwaway PostgreSQL, sharing
 * conversations (PROXY_REPLICA_URL/SECRET), real codex behind each, one recording model provider.
 */
export const startReplicaCluster = async (env: Record<string, string> = {}) => {
  const postgres: PostgresServer = await startPostgresServer();
  const storeUrl = await postgres.createDatabase("replica_conversations");
  const provider = await startScriptedModelProvider(model);
  const homes: Array<Awaited<ReturnType<typeof makeCodexHome>>> = [];
  const replicas: SpawnedGateway[] = [];

  /** One more replica; `own` adds to or overrides the cluster's settings for it alone. */
  const startReplica = async (own: Record<string, string> = {}) => {
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
        ...env,
        ...own,
      },
      { command: [process.execPath, BUILT_BIN], detached: true },
    );
    replicas.push(replica);
    return replica;
  };
  const client = (replica: SpawnedGateway, key = KEY_1) =>
    new OpenAI({ baseURL: `${replica.url}/v1`, apiKey: key, maxRetries: 0 });

  return {
    provider,
    startReplica,
    client,
    /** One turn of a chat conversation on `replica`: the history grows by the question and its answer. */
    async turn(
      replica: SpawnedGateway,
      history: Message[],
      text: string,
      options: { key?: string; model?: string; tools?: OpenAI.Chat.Completions.ChatCompletionTool[] } = {},
    ) {
      const messages: Message[] = [...history, { role: "user", content: text }];
      const answer = await client(replica, options.key).chat.completions.create(
        { model: options.model ?? "m", messages, ...(options.tools ? { tools: options.tools } : {}) },
        options.tools ? { headers: { "x-proxy-tool-mode": "native" } } : {},
      );
      const content = answer.choices[0]?.message.content ?? "";
      return { history: [...messages, { role: "assistant", content } as Message], content };
    },
    /** The provider requests whose last user text starts with `tag`. */
    sentFor: (tag: string) => provider.requests.filter((r) => lastUserText(r).startsWith(tag)),
    async close() {
      for (const replica of replicas) {
        if (replica.child.exitCode === null && replica.child.signalCode === null) {
          replica.child.kill("SIGTERM");
          await replica.exited;
        }
      }
      await provider.close();
      for (const home of homes) await home.cleanup();
      await postgres.stop();
    },
  };
};

export type ReplicaCluster = Awaited<ReturnType<typeof startReplicaCluster>>;
