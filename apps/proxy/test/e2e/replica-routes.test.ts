import { startScriptedUpstream } from "@proxy/adapter-openai-compatible/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  cacheKeyOf,
  type Message,
  type ReplicaCluster,
  replicaTurns,
  type SpawnedGateway,
  shown,
  startReplicaCluster,
} from "./replica-support.js";
import { lastUpstreamUserText } from "./upstream-gateway.js";

/** `role:text` lines of a chat history, as `shown` gives the provider's. */
const lines = (history: Message[]) => history.map((m) => `${m.role}:${String(m.content)}`);

/**
 * Two replicas whose `models` file routes names to codex (one with its own upstream model and
 * default effort) and to an OpenAI-compatible server: a conversation on a codex route is passed to
 * the replica holding its thread as its route made it, so both derive one key; the other route's
 * turns never are.
 */
describe("replicas share conversations with model routes", { timeout: 240_000 }, () => {
  let upstream: Awaited<ReturnType<typeof startScriptedUpstream>>;
  let cluster: ReplicaCluster;
  let a: SpawnedGateway;
  let b: SpawnedGateway;
  beforeAll(async () => {
    upstream = await startScriptedUpstream((r) => ({ text: `Local: ${lastUpstreamUserText(r)}` }));
    cluster = await startReplicaCluster({
      PROXY_CODEX_KEEP_EDITS: "true",
      PROXY_MODELS: JSON.stringify([
        { id: "m", backend: "codex" },
        { id: "m-high", backend: "codex", upstreamModel: "m", reasoningEffort: "high", aliases: ["deep"] },
        { id: "local", backend: "openai-compatible", baseUrl: upstream.url, upstreamModel: "llama" },
      ]),
    });
    [a, b] = await Promise.all([cluster.startReplica(), cluster.startReplica()]);
  }, 120_000);
  afterAll(async () => {
    await cluster?.close();
    await upstream?.close();
  });

  it("a conversation alternating replicas on a codex route keeps one prompt_cache_key, run as its route says", async () => {
    const from = cluster.provider.requests.length;
    const forwardedBefore = (await replicaTurns(b.url)).forwarded ?? 0;
    let history: Message[] = [];
    for (let i = 1; i <= 6; i++) {
      const replica = i % 2 === 1 ? a : b;
      const next = await cluster.turn(replica, history, `route-${i}`, { model: i === 4 ? "deep" : "m-high" });
      expect(next.content).toBe(`Echo: route-${i}`);
      history = next.history;
    }
    const sent = cluster.provider.requests.slice(from);
    expect(sent).toHaveLength(6);
    expect(new Set(sent.map(cacheKeyOf)).size).toBe(1);
    // Every turn as the route makes it: its upstream model at its default effort, wherever it ran.
    expect(sent.map((r) => [r.body.model, (r.body.reasoning as { effort?: string })?.effort])).toEqual(
      Array.from({ length: 6 }, () => ["m", "high"]),
    );
    expect(shown(sent.at(-1))).toEqual(lines(history.slice(0, -1)));
    expect((await replicaTurns(b.url)).forwarded).toBe(forwardedBefore + 3);
  });

  it("another route's settings are another conversation: the same history on the plain route gets its own thread", async () => {
    const first = await cluster.turn(a, [], "settings-1", { model: "m-high" });
    const second = await cluster.turn(b, first.history, "settings-2", { model: "m" });
    expect(second.content).toBe("Echo: settings-2");
    const [one, two] = [cluster.sentFor("settings-1")[0], cluster.sentFor("settings-2")[0]];
    expect(cacheKeyOf(two)).not.toBe(cacheKeyOf(one));
    // The fresh thread was given the whole history.
    expect(shown(two)).toEqual(lines(second.history.slice(0, -1)));
  });

  it("an edit of the latest turn on the other replica keeps the route's thread", async () => {
    const from = cluster.provider.requests.length;
    const one = await cluster.turn(a, [], "redo-1", { model: "m-high" });
    const two = await cluster.turn(b, one.history, "redo-2", { model: "m-high" });
    const edited = await cluster.turn(b, one.history, "redo-2 edited", { model: "m-high" });
    expect(edited.content).toBe("Echo: redo-2 edited");
    const sent = cluster.provider.requests.slice(from);
    expect(new Set(sent.map(cacheKeyOf)).size).toBe(1);
    expect(shown(sent.at(-1))).toEqual(lines(edited.history.slice(0, -1)));
    expect(shown(sent.at(-1))).not.toContain(`assistant:${two.content}`);
  });

  it("turns of a route that is not codex are never passed to another replica", async () => {
    const before = await Promise.all([replicaTurns(a.url), replicaTurns(b.url)]);
    const upstreamFrom = upstream.requests.length;
    let history: Message[] = [];
    for (let i = 1; i <= 4; i++) {
      const next = await cluster.turn(i % 2 === 1 ? a : b, history, `local-${i}`, { model: "local" });
      expect(next.content).toBe(`Local: local-${i}`);
      history = next.history;
    }
    expect(await Promise.all([replicaTurns(a.url), replicaTurns(b.url)])).toEqual(before);
    const sent = upstream.requests.slice(upstreamFrom);
    expect(sent.map((r) => r.body.model)).toEqual(["llama", "llama", "llama", "llama"]);
    // Each turn sent its whole history to the upstream, as a stateless route does.
    expect(JSON.stringify(sent.at(-1)?.body.messages)).toContain("Local: local-3");
  });

  it("a gateway none of whose routes runs on codex refuses the replica settings at start, saying why", async () => {
    const only = JSON.stringify([{ id: "local", backend: "openai-compatible", baseUrl: upstream.url }]);
    await expect(cluster.startReplica({ PROXY_MODELS: only })).rejects.toThrow(
      /PROXY_REPLICA_URL: .*no model route of this gateway runs on codex/,
    );
  });
});
