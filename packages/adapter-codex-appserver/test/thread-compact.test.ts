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

const CHECKPOINT = "You are performing a CONTEXT CHECKPOINT COMPACTION.";
const AFTER = "Another language model started to solve this problem and produced a summary";

/**
 * What codex 0.169 does for `thread/compact/start {threadId}` (what native compaction relies on),
 * pinned so an upgrade that changes it shows up: on an ephemeral thread too, it answers `{}` and
 * runs a compaction turn against the model provider on the thread's own `prompt_cache_key`.
 */
describe("codex thread/compact/start (real codex)", { timeout: 60_000 }, () => {
  let provider: ScriptedModelProvider;
  let home: CodexHome;
  let rpc: DirectRpc;
  const held = new Set<string>();
  beforeAll(async () => {
    provider = await startScriptedModelProvider((r) => ({ text: `answer ${r.index}` }));
    home = await makeCodexHome(provider.url);
    const env = { ...process.env, CODEX_HOME: home.path };
    // Dynamic tool calls are held (never answered): a turn waits on them.
    rpc = openDirectRpc(resolveCodexCommand(undefined, env), ["app-server"], env, (method, params) => {
      if (method !== "item/tool/call") return undefined;
      held.add(String(params.callId));
      return new Promise(() => {});
    });
    await rpc.request("initialize", {
      clientInfo: { name: "compact-probe", title: "probe", version: "0" },
      capabilities: { experimentalApi: true },
    });
    rpc.notify("initialized");
  });
  afterAll(async () => {
    await rpc?.close();
    await provider?.close();
    await home?.cleanup();
  });

  /** An ephemeral, read-only thread with raw events (where codex puts the compaction's summary). */
  const startThread = async (): Promise<string> => {
    const started = await rpc.request("thread/start", {
      ephemeral: true,
      approvalPolicy: "never",
      sandbox: "read-only",
      experimentalRawEvents: true,
    });
    return (started.thread as { id: string }).id;
  };

  it("compacts an ephemeral thread: the notifications, the provider request, the same key after", async () => {
    const threadId = await startThread();
    const seen: Array<[string, Record<string, unknown>]> = [];
    let completed: () => void = () => {};
    rpc.onThread(threadId, (method, params) => {
      seen.push([method, params]);
      if (method === "turn/completed") completed();
    });
    const untilCompleted = () =>
      new Promise<void>((resolve) => {
        completed = resolve;
      });
    const turn = async (text: string) => {
      const done = untilCompleted();
      await rpc.request("turn/start", { threadId, input: [{ type: "text", text, text_elements: [] }] });
      await done;
    };
    await turn("q1");
    await turn("q2");
    seen.length = 0;
    const from = provider.requests.length;
    const done = untilCompleted();
    expect(await rpc.request("thread/compact/start", { threadId })).toEqual({});
    await done;

    const methods = seen.map(([m]) => m);
    expect(methods).toEqual([
      "thread/status/changed",
      "turn/started",
      "item/started",
      "thread/tokenUsage/updated",
      "rawResponseItem/completed",
      "rawResponse/completed",
      "thread/tokenUsage/updated",
      "thread/tokenUsage/updated",
      "item/completed",
      "thread/status/changed",
      "turn/completed",
    ]);
    expect(methods).not.toContain("thread/compacted"); // in the binary's protocol, never sent here
    const item = (m: string) => seen.find(([method]) => method === m)?.[1];
    expect(item("item/started")?.item).toMatchObject({ type: "contextCompaction" });
    const turnId = (item("turn/started")?.turn as { id: string } | undefined)?.id;
    expect(item("item/started")?.turnId).toBe(turnId);
    // The summary reaches the client only as the raw assistant message (no agentMessage deltas).
    expect(item("rawResponseItem/completed")?.item).toMatchObject({
      type: "message",
      role: "assistant",
      content: [{ type: "output_text", text: `answer ${from}` }],
    });
    expect(item("turn/completed")?.turn).toMatchObject({ id: turnId, status: "completed" });

    const [compaction] = provider.requests.slice(from);
    expect(provider.requests.slice(from)).toHaveLength(1);
    expect(compaction?.body.tools).toEqual([]);
    expect(JSON.stringify(compaction?.body.input)).toContain(CHECKPOINT);
    expect(compaction?.body.prompt_cache_key).toBe(threadId);

    await turn("q3");
    const next = provider.requests.at(-1);
    expect(next?.body.prompt_cache_key).toBe(threadId);
    const texts = JSON.stringify(next?.body.input);
    expect(texts).toContain(`${AFTER}`);
    expect(texts).toContain(`answer ${from}`); // the summary, in codex's framing
    expect(texts).toContain('"q1"'); // codex keeps the user's messages
    expect(texts).not.toContain('"answer 0"'); // and drops the answers
  });

  it("covers items injected just before it, and a turn/start with no input samples on the compacted history", async () => {
    const threadId = await startThread();
    let completed: () => void = () => {};
    rpc.onThread(threadId, (method) => {
      if (method === "turn/completed") completed();
    });
    const untilCompleted = () =>
      new Promise<void>((resolve) => {
        completed = resolve;
      });
    let done = untilCompleted();
    await rpc.request("turn/start", { threadId, input: [{ type: "text", text: "p1", text_elements: [] }] });
    await done;
    // Anthropic's compaction: the prompt that reached the trigger goes in first, then codex compacts.
    const injected = {
      type: "message",
      role: "user",
      content: [{ type: "input_text", text: "p2 injected" }],
    };
    expect(await rpc.request("thread/inject_items", { threadId, items: [injected] })).toEqual({});
    done = untilCompleted();
    await rpc.request("thread/compact/start", { threadId });
    await done;
    const compaction = provider.requests.at(-1);
    expect(JSON.stringify(compaction?.body.input)).toContain("p2 injected");
    const summary = `answer ${compaction?.index}`;

    done = untilCompleted();
    const from = provider.requests.length;
    const turn = await rpc.request("turn/start", { threadId, input: [] });
    expect((turn.turn as { status?: string }).status).toBe("inProgress");
    await done;
    const [answer] = provider.requests.slice(from);
    expect(provider.requests.slice(from)).toHaveLength(1);
    expect(answer?.body.prompt_cache_key).toBe(threadId);
    type Item = { role?: string; content?: Array<{ text?: string }> };
    const users = ((answer?.body.input ?? []) as Item[]).filter((i) => i.role === "user");
    // Nothing after codex's summary: the model answers the compacted history as it stands.
    const last =
      users
        .at(-1)
        ?.content?.map((c) => c.text ?? "")
        .join("") ?? "";
    expect(last.startsWith(AFTER)).toBe(true);
    expect(last.endsWith(summary)).toBe(true);
  });

  it("on a turn open at a dynamic tool call it ends the turn and compacts the call as cancelled", async () => {
    // Why a conversation that ends with the client's result of that call is not compacted so.
    const started = await rpc.request("thread/start", {
      ephemeral: true,
      approvalPolicy: "never",
      sandbox: "read-only",
      experimentalRawEvents: true,
      dynamicTools: [
        { type: "function", name: "get_weather", description: "w", inputSchema: { type: "object" } },
      ],
    });
    const threadId = (started.thread as { id: string }).id;
    const statuses: string[] = [];
    let completed: () => void = () => {};
    rpc.onThread(threadId, (method, params) => {
      if (method !== "turn/completed") return;
      statuses.push(String((params.turn as { status?: string }).status));
      completed();
    });
    provider.script([
      {
        items: [{ type: "function_call", id: "fc_h1", call_id: "h1", name: "get_weather", arguments: "{}" }],
      },
    ]);
    await rpc.request("turn/start", { threadId, input: [{ type: "text", text: "w?", text_elements: [] }] });
    while (!held.has("h1")) await new Promise((r) => setTimeout(r, 20));
    provider.script((r) => ({ text: `answer ${r.index}` }));
    const from = provider.requests.length;
    const done = new Promise<void>((resolve) => {
      completed = () => statuses.length === 2 && resolve();
    });
    await rpc.request("thread/compact/start", { threadId });
    await done;
    expect(statuses).toEqual(["interrupted", "completed"]);
    const [compaction] = provider.requests.slice(from);
    const outputs = ((compaction?.body.input ?? []) as Array<{ type?: string; output?: string }>).filter(
      (i) => i.type === "function_call_output",
    );
    expect(outputs.map((o) => o.output)).toEqual([
      "dynamic tool call was cancelled before receiving a response",
    ]);
  });
});
