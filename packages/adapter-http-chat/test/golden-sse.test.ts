import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { GatewayError } from "@proxy/core";
import type { TurnSettings } from "@proxy/core/gateway";
import type { Script } from "@proxy/core/testing";
import { afterEach, describe, expect, it, vi } from "vitest";
import { postChat, sseData, startGateway, type TestGateway } from "./support/gateway.js";
import { fragments, TIME_TOOL, toolBlock, USER_ASKS, WEATHER_TOOL } from "./support/scripts.js";

/**
 * Byte-for-byte SSE transcripts (counting ids, fixed clock). Missing or changed files fail; run with
 * UPDATE_GOLDEN=1 to re-record, then review the diff of test/__fixtures__/*.sse by eye.
 */
const UPDATE = process.env.UPDATE_GOLDEN === "1";
const fixture = (name: string) => fileURLToPath(new URL(`./__fixtures__/${name}.sse`, import.meta.url));

const expectGolden = (name: string, transcript: string) => {
  const path = fixture(name);
  if (UPDATE) writeFileSync(path, transcript);
  if (!existsSync(path))
    throw new Error(`missing golden ${name}.sse: run with UPDATE_GOLDEN=1 and review it`);
  expect(transcript).toBe(readFileSync(path, "utf8"));
};

/** Structural checks every transcript must pass, so a wrong recording cannot become the golden. */
const checkTranscript = (transcript: string, ending: "done" | "error" | "cut") => {
  const data = sseData(transcript);
  const chunks = data.filter((d) => d !== "[DONE]").map((d) => JSON.parse(d));
  const first = chunks[0];
  expect(first.choices[0].delta).toEqual({ role: "assistant", content: "" });
  for (const c of chunks.filter((c) => c.error === undefined)) {
    expect([c.id, c.object, c.created, c.model]).toEqual([
      "chatcmpl-1",
      "chat.completion.chunk",
      1_700_000_000,
      "gpt-test",
    ]);
  }
  const finishes = chunks.filter((c) => c.choices?.[0]?.finish_reason != null);
  if (ending === "done") {
    expect(data.at(-1)).toBe("[DONE]");
    expect(finishes).toHaveLength(1);
    expect(transcript).toMatch(/\n: \{"tool_call_count":\d+,.*\}\n\n(data: \[DONE\]\n\n)$/);
  } else if (ending === "error") {
    expect(data).not.toContain("[DONE]");
    expect(finishes).toHaveLength(0);
    expect(chunks.at(-1).error).toMatchObject({ message: expect.any(String), type: expect.any(String) });
  }
};

interface Case {
  readonly name: string;
  readonly script: Script;
  readonly body?: Record<string, unknown>;
  readonly headers?: Record<string, string>;
  readonly settings?: Partial<TurnSettings>;
  readonly ending?: "done" | "error";
}

const weather = toolBlock("get_weather", { city: "Paris" });
const strictWeather = { ...WEATHER_TOOL, function: { ...WEATHER_TOOL.function, strict: true } };

const CASES: Case[] = [
  { name: "text-only", script: [{ chunks: fragments("Hello! How can I help you today?", 6) }] },
  { name: "one-call", script: [{ chunks: fragments(weather, 9) }] },
  {
    name: "three-calls",
    script: [
      {
        chunks: fragments(
          [weather, toolBlock("get_weather", { city: "Oslo" }), toolBlock("get_time", { tz: "UTC" })].join(
            "\n",
          ),
          11,
        ),
      },
    ],
  },
  {
    name: "text-and-call",
    script: [{ chunks: ["Let me check ", "the weather.\n", ...fragments(weather, 13)] }],
  },
  {
    name: "strict-failure",
    body: { tools: [strictWeather] },
    script: [{ chunks: [toolBlock("get_weather", { town: "Paris" })] }],
    ending: "error",
  },
  {
    name: "tool-choice-none",
    body: { tool_choice: "none" },
    script: [{ chunks: ["I would rather just say: mild.", weather] }],
  },
  {
    name: "tool-choice-required",
    body: { tool_choice: "required" },
    script: (_r, turn) =>
      turn === 0 ? { chunks: ["It is probably mild."] } : { chunks: fragments(weather, 10) },
  },
  {
    name: "tool-choice-forced",
    body: { tool_choice: { type: "function", function: { name: "get_time" } } },
    script: [{ chunks: fragments(toolBlock("get_time", { tz: "Europe/Paris" }), 10) }],
  },
  {
    name: "obsidian-xml",
    headers: { "x-proxy-output-mode": "obsidian-xml" },
    script: [
      {
        chunks: fragments(
          "Checking.\n<use_tool>\n<name>get_weather</name>\n<city>Paris</city>\n</use_tool>",
          12,
        ),
      },
    ],
  },
  {
    name: "include-usage",
    body: { stream_options: { include_usage: true } },
    script: [
      {
        chunks: fragments(weather, 20),
        usage: {
          inputTokens: 321,
          outputTokens: 45,
          totalTokens: 366,
          cachedInputTokens: 300,
          reasoningOutputTokens: 7,
        },
      },
    ],
  },
  {
    // Unescaped inner quotes: the escapes are added, the value is exactly the one written.
    name: "repair-inner-quotes",
    script: [
      {
        chunks: fragments(
          '<tool_call>{"name":"get_time","arguments":{"tz":"He said "hello" to me"}}</tool_call>',
          7,
        ),
      },
    ],
  },
  {
    // A block never closed (its string holds the close tag), then a valid block: the broken one
    // is text, the valid one a call. (Its name is no tool here, so nothing of it was streamed.)
    name: "broken-then-valid",
    script: [
      {
        chunks: fragments(`<tool_call>{"name":"lookup","arguments":{"q":"Paris </tool_call>\n${weather}`, 8),
      },
    ],
  },
  {
    // The same with a call that already streamed to the client: it cannot be taken back, so the
    // turn fails with a clear error rather than end on a shortened call.
    name: "broken-streamed-then-valid",
    script: [
      {
        chunks: fragments(
          `<tool_call>{"name":"get_time","arguments":{"tz":"Europe/Par </tool_call>\n${weather}`,
          8,
        ),
      },
    ],
    ending: "error",
  },
  {
    // Two objects in one block: two calls.
    name: "two-objects-one-block",
    script: [
      {
        chunks: fragments(
          '<tool_call>{"name":"get_weather","arguments":{"city":"Paris"}}\n{"name":"get_time","arguments":{"tz":"UTC"}}</tool_call>',
          9,
        ),
      },
    ],
  },
  {
    // A prototype key is refused for a soft tool too; its call had streamed: the turn fails.
    name: "fail-closed-proto-key",
    script: [
      {
        chunks: fragments(
          '<tool_call>{"name":"get_time","arguments":{"tz":"UTC","__proto__":{"admin":true}}}</tool_call>',
          10,
        ),
      },
    ],
    ending: "error",
  },
  {
    name: "error-mid-stream",
    script: [
      {
        chunks: ["Partial ", "answer ", "never finished"],
        errorAfterChunks: 2,
        error: new GatewayError("backend_unavailable", "The backend process exited."),
      },
    ],
    ending: "error",
  },
];

let gateway: TestGateway | undefined;
afterEach(async () => {
  await gateway?.close();
  gateway = undefined;
});

const request = (body: Record<string, unknown> = {}) => ({
  model: "gpt-test",
  messages: [...USER_ASKS],
  tools: [WEATHER_TOOL, TIME_TOOL],
  stream: true,
  ...body,
});

describe("golden SSE transcripts", () => {
  for (const c of CASES) {
    it(c.name, async () => {
      gateway = await startGateway(c.script, c.settings ? { settings: c.settings } : {});
      const res = await postChat(gateway, request(c.body), c.headers);
      expect(res.status).toBe(200);
      expect(res.headers.get("content-type")).toContain("text/event-stream");
      checkTranscript(res.text, c.ending ?? "done");
      expectGolden(c.name, res.text);
    });
  }

  it("client-disconnect", async () => {
    // Reasoning is played at once, then the model goes silent until the turn is aborted.
    gateway = await startGateway([
      { reasoning: ["First thoughts"], chunks: ["never sent"], delayMs: 600_000 },
    ]);
    const controller = new AbortController();
    const res = await fetch(`${gateway.baseURL}/chat/completions`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify(request()),
      signal: controller.signal,
    });
    const reader = res.body!.getReader();
    const decoder = new TextDecoder();
    let received = "";
    while (!received.includes("First thoughts")) {
      const { value, done } = await reader.read();
      if (done) break;
      received += decoder.decode(value, { stream: true });
    }
    controller.abort();
    checkTranscript(received, "cut");
    expectGolden("client-disconnect", received);
    const g = gateway;
    await vi.waitFor(() => expect(g.backend.aborts()).toBe(1));
    await vi.waitFor(() => expect(g.summaries.map((s) => s.error?.kind)).toEqual(["cancelled"]));
    expect(g.backend.active()).toBe(0);
  });
});
