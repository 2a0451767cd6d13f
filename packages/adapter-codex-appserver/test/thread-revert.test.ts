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
 * fork those; a durable thread can be reverted to before a turn and keeps its `prompt_cache_key`,
 * a turn still open at a dynamic tool call included (the revert ends it). Pinned here so an
 * upgrade of codex that changes any of it shows up.
 */
describe("codex thread/revert and thread/fork (real codex)", { timeout: 60_000 }, () => {
  let provider: ScriptedModelProvider;
  let home: CodexHome;
  let rpc: DirectRpc;
  /** Dynamic tool calls codex asked for and waits on, by call id: answer them with the result. */
  const held = new Map<string, (result: unknown) => void>();
  beforeAll(async () => {
    provider = await startScriptedModelProvider((r) => ({ text: `answer ${r.index}` }));
    home = await makeCodexHome(provider.url);
    const env = { ...process.env, CODEX_HOME: home.path };
    rpc = openDirectRpc(resolveCodexCommand(undefined, env), ["app-server"], env, (method, params) =>
      method === "item/tool/call"
        ? new Promise((resolve) => held.set(String(params.callId), resolve))
        : undefined,
    );
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

  const WEATHER = {
    type: "function",
    name: "get_weather",
    description: "The weather in a city.",
    inputSchema: { type: "object", properties: { city: { type: "string" } } },
  };
  const thread = async (ephemeral: boolean, native = false) => {
    const started = await rpc.request("thread/start", {
      ephemeral,
      approvalPolicy: "never",
      sandbox: "read-only",
      ...(native ? { dynamicTools: [WEATHER], experimentalRawEvents: true } : {}),
    });
    const threadId = (started.thread as { id: string }).id;
    let completed: (turn: { id: string; status: string }) => void = () => {};
    const usage: unknown[] = [];
    const events: string[] = [];
    rpc.onThread(threadId, (method, params) => {
      events.push(method);
      if (method === "turn/completed") completed(params.turn as { id: string; status: string });
      if (method === "thread/tokenUsage/updated") usage.push(params.tokenUsage);
    });
    const injectItems = (items: unknown[]) => rpc.request("thread/inject_items", { threadId, items });
    const inject = (text: string) =>
      injectItems([{ type: "message", role: "developer", content: [{ type: "input_text", text }] }]);
    /** Starts a turn; `done` settles with codex's turn/completed. */
    const begin = async (input: unknown[]) => {
      const done = new Promise<{ id: string; status: string }>((resolve) => {
        completed = resolve;
      });
      const res = await rpc.request("turn/start", { threadId, input });
      return { id: (res.turn as { id: string }).id, done };
    };
    const turn = async (text: string) => {
      const started = await begin([{ type: "text", text, text_elements: [] }]);
      await started.done;
      return started.id;
    };
    return { threadId, turn, begin, inject, injectItems, usage, events };
  };
  const until = async (check: () => boolean) => {
    while (!check()) await new Promise((r) => setTimeout(r, 20));
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

  it("a turn left open at a dynamic tool call is ended by thread/revert: nothing of it stays, the replacing items go in", async () => {
    const from = provider.requests.length;
    const call = { type: "function_call", call_id: "c1", name: "get_weather", arguments: '{"city":"Paris"}' };
    provider.script([
      { text: "one" },
      { items: [{ ...call, id: "fc_c1" }] },
      { text: "Sunny." },
      { items: [{ ...call, id: "fc_c2", call_id: "c2" }] },
      { text: "Sunny again." },
    ]);
    const { threadId, turn, begin, injectItems } = await thread(false, true);
    await turn("q1");
    const open = await begin([{ type: "text", text: "q2", text_elements: [] }]);
    await until(() => held.has("c1"));
    // No turn/interrupt first: the revert ends the open turn itself.
    await rpc.request("thread/revert", { threadId, beforeTurnId: open.id });
    expect(await open.done).toMatchObject({ id: open.id, status: "interrupted" });
    held.get("c1")?.({ contentItems: [{ type: "inputText", text: "late" }], success: true }); // ignored
    // The replaced turn as a fresh thread gets it, then a turn with no input.
    const replaced = [
      { type: "message", role: "user", content: [{ type: "input_text", text: "q2" }] },
      call,
      { type: "function_call_output", call_id: "c1", output: "22C" },
    ];
    await injectItems(replaced);
    const rerun = await begin([]);
    expect(await rerun.done).toMatchObject({ status: "completed" });
    // And that turn (it began after the injected items) rerun once more, while a later one is open.
    const later = await begin([{ type: "text", text: "q3", text_elements: [] }]);
    await until(() => held.has("c2"));
    await rpc.request("thread/revert", { threadId, beforeTurnId: rerun.id });
    expect(await later.done).toMatchObject({ status: "interrupted" });
    await (await begin([])).done;
    const sent = provider.requests.slice(from);
    expect(new Set(sent.map((r) => r.body.prompt_cache_key)).size).toBe(1);
    const shown = (i: number) =>
      ((sent[i]?.body.input ?? []) as Array<Record<string, unknown>>).flatMap((item) =>
        item.type === "message" && item.role !== "developer"
          ? [`${item.role}:${JSON.stringify(item.content).match(/"text":"([^"]*)"/)?.[1]}`]
          : item.type === "function_call" || item.type === "function_call_output"
            ? [`${item.type}:${item.call_id}:${item.output ?? item.arguments}`]
            : [],
      );
    const edited = [
      "user:q1",
      "assistant:one",
      "user:q2",
      'function_call:c1:{"city":"Paris"}',
      "function_call_output:c1:22C",
    ];
    expect(shown(2).filter((t) => !t.startsWith("user:<"))).toEqual(edited);
    expect(shown(4).filter((t) => !t.startsWith("user:<"))).toEqual(edited);
    for (const i of [2, 4])
      expect(JSON.stringify(sent[i]?.body.input)).not.toMatch(/turn_aborted|cancelled before|"late"/);
  });
});
