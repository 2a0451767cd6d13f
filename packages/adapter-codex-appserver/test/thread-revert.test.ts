import { readdir } from "node:fs/promises";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { resolveCodexCommand } from "../src/codex-binary.js";
import {
  type CodexHome,
  type DirectRpc,
  makeCodexHome,
  openDirectRpc,
  type ScriptedModelProvider,
  startScriptedModelProvider,
} from "../src/testing/index.js";

/**
 * What codex 0.169 offers for an edited conversation (a client that rewrites its last turn): the
 * gateway's threads are ephemeral (nothing written under CODEX_HOME), and codex refuses to revert or
 * fork those; a durable thread can be reverted to before a turn and keeps its `prompt_cache_key`.
 * Pinned here so an upgrade of codex that changes either shows up.
 */
describe("codex thread/revert and thread/fork (real codex)", { timeout: 60_000 }, () => {
  let provider: ScriptedModelProvider;
  let home: CodexHome;
  let rpc: DirectRpc;
  beforeAll(async () => {
    provider = await startScriptedModelProvider((r) => ({ text: `answer ${r.index}` }));
    home = await makeCodexHome(provider.url);
    const env = { ...process.env, CODEX_HOME: home.path };
    rpc = openDirectRpc(resolveCodexCommand(undefined, env), ["app-server"], env);
    await rpc.request("initialize", {
      clientInfo: { name: "revert-probe", title: "probe", version: "0" },
      capabilities: { experimentalApi: true },
    });
    rpc.notify("initialized");
  });
  afterAll(async () => {
    await rpc?.close();
    await provider?.close();
    await home?.cleanup();
  });

  const thread = async (ephemeral: boolean) => {
    const started = await rpc.request("thread/start", {
      ephemeral,
      approvalPolicy: "never",
      sandbox: "read-only",
    });
    const threadId = (started.thread as { id: string }).id;
    let completed: () => void = () => {};
    const usage: unknown[] = [];
    rpc.onThread(threadId, (method, params) => {
      if (method === "turn/completed") completed();
      if (method === "thread/tokenUsage/updated") usage.push(params.tokenUsage);
    });
    const inject = (text: string) =>
      rpc.request("thread/inject_items", {
        threadId,
        items: [{ type: "message", role: "developer", content: [{ type: "input_text", text }] }],
      });
    const turn = async (text: string) => {
      const done = new Promise<void>((resolve) => {
        completed = resolve;
      });
      const res = await rpc.request("turn/start", {
        threadId,
        input: [{ type: "text", text, text_elements: [] }],
      });
      await done;
      return (res.turn as { id: string }).id;
    };
    return { threadId, turn, inject, usage };
  };
  /** The user and assistant texts of each provider request since `from`, and its cache key. */
  const sent = (from: number) =>
    provider.requests.slice(from).map((r) => ({
      key: r.body.prompt_cache_key,
      texts: (JSON.stringify(r.body.input).match(/"text":"((?:q|dev)\d[^"]*|answer \d+)"/g) ?? []).map((t) =>
        t.slice(8, -1),
      ),
    }));

  it("an ephemeral thread (the gateway's) can be neither reverted nor forked", async () => {
    const { threadId, turn } = await thread(true);
    const t1 = await turn("q1");
    const t2 = await turn("q2");
    await expect(rpc.request("thread/revert", { threadId, beforeTurnId: t2 })).rejects.toThrow(
      "ephemeral threads do not support thread/revert",
    );
    await expect(rpc.request("thread/fork", { threadId, lastTurnId: t1, ephemeral: true })).rejects.toThrow(
      "no rollout found",
    );
  });

  it("a durable thread reverted to before its last turn continues on the same cache key without it", async () => {
    const from = provider.requests.length;
    const { threadId, turn } = await thread(false);
    await turn("q1");
    const t2 = await turn("q2");
    await rpc.request("thread/revert", { threadId, beforeTurnId: t2 });
    await turn("q2 edited");
    const [first, second, edited] = sent(from);
    expect(edited?.texts.filter((t) => t.startsWith("q"))).toEqual(["q1", "q2 edited"]);
    expect(new Set([first?.key, second?.key, edited?.key]).size).toBe(1);
  });

  it("a revert keeps the history injected before the reverted turn, rolls the usage total back; delete removes the rollouts", async () => {
    const from = provider.requests.length;
    const { threadId, turn, inject, usage } = await thread(false);
    await turn("q1");
    await inject("dev2");
    const t2 = await turn("q2");
    await inject("dev3");
    await turn("q3");
    await rpc.request("thread/revert", { threadId, beforeTurnId: t2 });
    await turn("q2 edited");
    const requests = sent(from);
    const kept = requests[1]?.texts.slice(0, 3) ?? []; // q1, its answer, dev2
    expect(kept[2]).toBe("dev2");
    expect(requests.at(-1)?.texts).toEqual([...kept, "q2 edited"]); // neither turn 2, dev3 nor turn 3
    expect(new Set(requests.map((r) => r.key)).size).toBe(1);
    const totals = usage.map((u) => (u as { total: { totalTokens: number } }).total.totalTokens);
    expect(totals.at(-1)).toBe((totals[0] ?? 0) * 2); // turn 1's total + the new turn's, not turns 2–3
    const files = async () =>
      (await readdir(join(home.path, "sessions"), { recursive: true })).filter((f) => f.endsWith(".jsonl"));
    const mine = (await files()).filter((f) => f.includes(threadId));
    expect(mine.length).toBe(2); // the revert writes a second rollout file
    await rpc.request("thread/delete", { threadId });
    expect((await files()).filter((f) => f.includes(threadId))).toEqual([]);
  });
});
