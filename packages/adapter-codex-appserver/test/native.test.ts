import { spawn } from "node:child_process";
import { fileURLToPath } from "node:url";
import type { BackendRequest, ToolSpec } from "@proxy/core";
import type { BackendEvent } from "@proxy/core/gateway";
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Logger } from "../src/logger.js";
import { silentLogger } from "../src/logger.js";
import type { RecordedRequest } from "../src/testing/index.js";
import { createToolNames } from "../src/turn/tool-names.js";
import { createTurnMapper } from "../src/turn/turn-mapper.js";
import { collect, type RealHarness, request, startRealHarness } from "./helpers.js";

const tool = (name: string, description = `the client's ${name}`): ToolSpec => ({
  name,
  description,
  parameters: { type: "object", properties: { cmd: { type: "string" } } },
  strict: false,
});

const native = (tools: ToolSpec[], overrides: Partial<BackendRequest> = {}): BackendRequest =>
  request({ tools: { tools, choice: { type: "auto" }, parallel: true }, ...overrides });

const fn = (callId: string, name: string, args: object) => ({
  type: "function_call",
  id: `fc_${callId}`,
  call_id: callId,
  name,
  arguments: JSON.stringify(args),
});

type Item = { type?: string; name?: string; call_id?: string; output?: unknown };
const inputItems = (r: RecordedRequest | undefined) => (r?.body.input ?? []) as Item[];
const toolNames = (r: RecordedRequest | undefined) => ((r?.body.tools ?? []) as Item[]).map((t) => t.name);
const calls = (events: ReadonlyArray<BackendEvent>) => events.filter((e) => e.type === "tool-call-end");

describe("tool names for codex", () => {
  it("keeps ordinary names, maps reserved and invalid ones reversibly, avoiding the client's own names", () => {
    const names = createToolNames(["get_weather", "exec_command", "exec_command_1"], ["my.tool"]);
    expect(names.toCodex("get_weather")).toBe("get_weather");
    expect(names.toCodex("exec_command")).toBe("exec_command_2");
    expect(names.toCodex("my.tool")).toBe("my_tool_1");
    expect(names.toClient("exec_command_2")).toBe("exec_command");
    expect(names.toClient("exec_command_1")).toBe("exec_command_1");
    expect(names.toClient("exec_command")).toBeUndefined();
    // The same tools map the same way in the follow-up request, whatever its history holds.
    expect(createToolNames(["get_weather", "exec_command", "exec_command_1"]).toCodex("exec_command")).toBe(
      "exec_command_2",
    );
  });
});

describe("native completion rule", () => {
  const t = { threadId: "th", turnId: "tu" };
  const raw = (callId: string, name: string) =>
    [
      "rawResponseItem/completed",
      { ...t, item: { type: "function_call", call_id: callId, name, arguments: `{"id":"${callId}"}` } },
    ] as const;
  const asked = (callId: string) => ["item/tool/call", { ...t, callId }] as const;
  const usage = {
    inputTokens: 5,
    outputTokens: 2,
    totalTokens: 7,
    cachedInputTokens: 0,
    reasoningOutputTokens: 0,
  };
  const completed = ["rawResponse/completed", { ...t, responseId: "r", usage }] as const;

  it("finishes once: after the response completed and codex asked for every call, in any arrival order", () => {
    fc.assert(
      fc.property(fc.array(fc.nat(), { minLength: 8, maxLength: 8 }), (weights) => {
        // The response's raw items and its end come in order; codex's requests interleave anywhere.
        const streams: Array<Array<readonly [string, Record<string, unknown>]>> = [
          [
            raw("call_a", "get_weather"),
            raw("call_h", "get_weather"), // replayed history: not a new call
            raw("call_b", "exec_command_1"),
            raw("call_x", "shell"), // not a client tool: codex answers it itself
            completed,
          ],
          [asked("call_a")],
          [asked("call_b")],
        ];
        const names = createToolNames(["get_weather", "exec_command"]);
        const m = createTurnMapper(silentLogger, { names, historyCallIds: new Set(["call_h"]) });
        const out: BackendEvent[] = [];
        const seen = new Set<string>();
        let w = 0;
        while (streams.some((s) => s.length > 0)) {
          const live = streams.filter((s) => s.length > 0);
          const [method, params] = live[(weights[w++ % weights.length] ?? 0) % live.length]!.shift()!;
          seen.add(method === "item/tool/call" ? `asked:${params.callId}` : method);
          const events = m.map(method, params);
          if (events.some((e) => e.type === "finish")) {
            expect(
              seen.has("rawResponse/completed") && seen.has("asked:call_a") && seen.has("asked:call_b"),
            ).toBe(true);
          }
          out.push(...events);
        }
        expect(out.filter((e) => e.type === "tool-call-end")).toEqual([
          { type: "tool-call-end", callId: "call_a", name: "get_weather", arguments: '{"id":"call_a"}' },
          { type: "tool-call-end", callId: "call_b", name: "exec_command", arguments: '{"id":"call_b"}' },
        ]);
        expect(out.filter((e) => e.type === "finish")).toEqual([
          { type: "finish", finish: { reason: "tool_calls", raw: "function_call" } },
        ]);
        expect(out.filter((e) => e.type === "usage")).toEqual([{ type: "usage", usage }]);
        expect(m.done()).toBe(true);
      }),
      { numRuns: 200 },
    );
  });
});

describe("codex native turns, one thread per request (real binary)", { timeout: 60_000 }, () => {
  let h: RealHarness;
  beforeAll(async () => {
    // Continuity off: each request's thread is let go, and its held tool requests with it.
    h = await startRealHarness({ continuity: false });
  }, 60_000);
  afterAll(() => h?.close());

  it("a reserved tool name round trips: codex sees a mapped name, the client its own", async () => {
    h.provider.script([{ items: [fn("call_r1", "exec_command_1", { cmd: "ls" })] }]);
    const first = await collect(
      h.backend.stream(native([tool("exec_command")]), { signal: new AbortController().signal }),
    );
    expect(toolNames(h.provider.requests.at(-1))).toEqual(["exec_command_1"]);
    expect(calls(first)).toEqual([
      { type: "tool-call-end", callId: "call_r1", name: "exec_command", arguments: '{"cmd":"ls"}' },
    ]);
    expect(first.at(-1)).toMatchObject({ type: "finish", finish: { reason: "tool_calls" } });

    h.provider.script([{ text: "listed" }]);
    const followUp = native([tool("exec_command")], {
      history: [
        { role: "user", content: [{ type: "text", text: "hi" }] },
        {
          role: "assistant",
          toolCalls: [{ callId: "call_r1", name: "exec_command", arguments: '{"cmd":"ls"}' }],
        },
        { role: "tool", callId: "call_r1", output: "a.txt" },
      ],
      input: [],
    });
    await collect(h.backend.stream(followUp, { signal: new AbortController().signal }));
    const sent = inputItems(h.provider.requests.at(-1));
    expect(sent.find((i) => i.type === "function_call")).toMatchObject({
      name: "exec_command_1",
      call_id: "call_r1",
    });
    expect(sent.at(-1)).toMatchObject({ type: "function_call_output", call_id: "call_r1", output: "a.txt" });
    await expect.poll(() => h.backend.pendingToolRequests()).toBe(0);
  });

  it("ends the response only once codex asked for every call, then releases them all", async () => {
    const three = ["a", "b", "c"].map((k) => fn(`call_p_${k}`, "get_weather", { city: k }));
    h.provider.script([{ items: three }]);
    const events = await collect(
      h.backend.stream(native([tool("get_weather")]), { signal: new AbortController().signal }),
    );
    expect(calls(events).map((e) => e.type === "tool-call-end" && e.callId)).toEqual([
      "call_p_a",
      "call_p_b",
      "call_p_c",
    ]);
    expect(events.filter((e) => e.type === "usage")).toHaveLength(1);
    await expect.poll(() => h.backend.pendingToolRequests()).toBe(0);
  });

  it("a client that goes away mid-turn leaves no pending codex request behind", async () => {
    // The call completes (codex asks for it at once) while the model's response never ends.
    h.provider.script([
      { items: [fn("call_d1", "get_weather", { city: "x" })], chunks: ["..."], hang: true },
    ]);
    const controller = new AbortController();
    const seen: BackendEvent[] = [];
    const run = (async () => {
      for await (const e of h.backend.stream(native([tool("get_weather")]), { signal: controller.signal }))
        seen.push(e);
    })();
    await expect.poll(() => h.backend.pendingToolRequests(), { timeout: 20_000 }).toBe(1);
    expect(h.backend.readiness().pendingToolRequests).toBe(1);
    controller.abort();
    await run;
    await expect.poll(() => h.backend.pendingToolRequests(), { timeout: 20_000 }).toBe(0);
    expect(seen.some((e) => e.type === "finish")).toBe(false);
  });
});

describe("a codex that refuses the experimental API", { timeout: 60_000 }, () => {
  const FILTER = fileURLToPath(new URL("./fixtures/refuse-experimental.mjs", import.meta.url));
  const warnings: string[] = [];
  const logger: Logger = {
    debug: () => {},
    info: () => {},
    warn: (_o: unknown, msg?: string) => warnings.push(String(msg)),
    error: () => {},
    child: () => logger,
  } as unknown as Logger;
  let h: RealHarness;
  beforeAll(async () => {
    h = await startRealHarness({
      logger,
      spawn: (command, args, options) => spawn(process.execPath, [FILTER, command, ...args], options),
    });
  }, 60_000);
  afterAll(() => h?.close());

  it("turns native tools off, says so once, and still serves prompt turns", async () => {
    expect(h.backend.capabilities?.nativeTools).toBe(false);
    expect(warnings.filter((w) => /experimental API/.test(w))).toHaveLength(1);
    h.provider.script([{ text: "prompt mode works" }]);
    const events = await collect(h.backend.stream(request(), { signal: new AbortController().signal }));
    expect(events.at(-1)).toMatchObject({ type: "finish", finish: { reason: "stop" } });
  });

  it("fails a native turn with a clear error", async () => {
    const stream = h.backend.stream(native([tool("get_weather")]), { signal: new AbortController().signal });
    await expect(collect(stream)).rejects.toMatchObject({
      kind: "invalid_request",
      code: "native_tools_unavailable",
    });
  });
});
