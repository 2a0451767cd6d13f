import type OpenAI from "openai";
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

const tools: OpenAI.Chat.Completions.ChatCompletionTool[] = [
  {
    type: "function",
    function: {
      name: "get_weather",
      parameters: { type: "object", properties: { city: { type: "string" } } },
    },
  },
];

type Mode = "prompt" | "native";
/** `role:text` lines of a chat history, as `shown` gives the provider's. */
const lines = (history: Message[]) => history.map((m) => `${m.role}:${String(m.content)}`);

/**
 * Two replicas with kept edits (PROXY_CODEX_KEEP_EDITS=true): a chat conversation alternating
 * between them whose latest turn is edited or regenerated on the replica that does not hold its
 * thread. The edit is passed to the owner, which reverts its thread and continues it.
 */
describe("replicas share edits: an edit landing on the other replica keeps the thread and its key", {
  timeout: 240_000,
}, () => {
  let cluster: ReplicaCluster;
  let a: SpawnedGateway;
  let b: SpawnedGateway;
  beforeAll(async () => {
    cluster = await startReplicaCluster({ PROXY_CODEX_KEEP_EDITS: "true" });
    [a, b] = await Promise.all([cluster.startReplica(), cluster.startReplica()]);
  }, 120_000);
  afterAll(() => cluster?.close());

  const cases: ReadonlyArray<[Mode, "edited" | "regenerated"]> = [
    ["prompt", "edited"],
    ["prompt", "regenerated"],
    ["native", "edited"],
    ["native", "regenerated"],
  ];
  it.each(cases)(
    "%s mode: the latest turn %s on the other replica, the abandoned branch resent",
    async (mode, kind) => {
      const tag = `${mode}-${kind}`;
      const options = mode === "native" ? { tools } : {};
      const turn = (replica: SpawnedGateway, history: Message[], text: string) =>
        cluster.turn(replica, history, text, options);
      const from = cluster.provider.requests.length;
      // Turns 1–3 alternate: a, b (forwarded to a), a.
      const one = await turn(a, [], `${tag} 1 #`);
      const two = await turn(b, one.history, `${tag} 2 #`);
      const three = await turn(a, two.history, `${tag} 3 #`);
      expect(three.content).toMatch(new RegExp(`^Echo: ${tag} 3 #`));
      // Turn 3 again on b: edited (another text) or regenerated (the same text resent).
      const forwardedBefore = (await replicaTurns(b.url)).forwarded ?? 0;
      const again = await turn(b, two.history, kind === "edited" ? `${tag} 3 edited #` : `${tag} 3 #`);
      expect((await replicaTurns(b.url)).forwarded).toBe(forwardedBefore + 1);
      expect(again.content).not.toBe(three.content);
      // The edited branch goes on, on a.
      const four = await turn(a, again.history, `${tag} 4 #`);
      const sent = cluster.provider.requests.slice(from);
      expect(sent).toHaveLength(5);
      // One thread: turns 1–3, the edit and what follows on one key.
      expect(new Set(sent.map(cacheKeyOf)).size).toBe(1);
      // The model saw exactly the edited history: nothing of the discarded turn 3.
      expect(shown(sent[3])).toEqual(lines(again.history.slice(0, -1)));
      expect(shown(sent[4])).toEqual(lines(four.history.slice(0, -1)));
      expect(shown(sent[4]).filter((l) => l.startsWith(`assistant:Echo: ${tag} 3`))).toEqual([
        `assistant:${again.content}`,
      ]);
      // The client goes back to the branch it left, on b: exactly its own history (a fresh thread).
      const abandoned = await turn(b, three.history, `${tag} 5 abandoned #`);
      expect(abandoned.content).toMatch(new RegExp(`^Echo: ${tag} 5 abandoned #`));
      const resent = cluster.provider.requests.at(-1);
      expect(shown(resent)).toEqual(lines(abandoned.history.slice(0, -1)));
      expect(shown(resent)).not.toContain(`assistant:${again.content}`);
    },
  );
});
