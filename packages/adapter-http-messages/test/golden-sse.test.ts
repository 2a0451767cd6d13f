import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { GatewayError } from "@proxy/core";
import type { Script } from "@proxy/core/testing";
import { afterEach, describe, expect, it } from "vitest";
import { checkMessagesStream, parseSseFrames } from "../src/testing/index.js";
import { post, startGateway, type TestGateway } from "./support/gateway.js";
import { base, fragments, TIME_TOOL, toolBlock, WEATHER_TOOL } from "./support/scripts.js";

/**
 * Byte-for-byte SSE transcripts (counting ids, fixed clock), each first checked by the independent
 * grammar validator so a wrong recording cannot become the golden. Run with UPDATE_GOLDEN=1 to
 * re-record, then review the diff of test/__fixtures__/*.sse by eye.
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

interface Case {
  readonly name: string;
  readonly script: Script;
  readonly body?: Record<string, unknown>;
  readonly expect: (checked: ReturnType<typeof checkMessagesStream>) => void;
}

const weather = toolBlock("get_weather", { city: "Paris" });
const message = (c: ReturnType<typeof checkMessagesStream>) => {
  if (c.kind !== "message") throw new Error(`expected a message, got ${JSON.stringify(c)}`);
  return c.message;
};

const CASES: ReadonlyArray<Case> = [
  {
    name: "text-only",
    script: [{ chunks: ["Hello", " from", " the model."] }],
    expect: (c) => {
      expect(message(c).content).toEqual([{ type: "text", text: "Hello from the model." }]);
      expect(message(c).stop_reason).toBe("end_turn");
    },
  },
  {
    name: "text-and-call",
    script: [{ chunks: fragments(`Let me check. ${weather}`) }],
    body: { tools: [WEATHER_TOOL] },
    expect: (c) => {
      expect(message(c).content).toEqual([
        { type: "text", text: "Let me check. " },
        { type: "tool_use", id: "toolu_1", name: "get_weather", input: { city: "Paris" } },
      ]);
      expect(message(c).stop_reason).toBe("tool_use");
    },
  },
  {
    name: "two-calls",
    script: [{ chunks: fragments(`${weather}\n${toolBlock("get_time", { tz: "Europe/Paris" })}`, 11) }],
    body: { tools: [WEATHER_TOOL, TIME_TOOL] },
    expect: (c) => {
      expect(message(c).content.map((b) => b.name)).toEqual(["get_weather", "get_time"]);
      expect(message(c).content[1]).toMatchObject({ input: { tz: "Europe/Paris" } });
    },
  },
  {
    name: "reasoning-and-call",
    script: [{ reasoning: ["The user wants ", "the weather."], chunks: fragments(weather) }],
    body: { tools: [WEATHER_TOOL], thinking: { type: "enabled", budget_tokens: 2048 } },
    expect: (c) => {
      const [thinking, call] = message(c).content;
      expect(thinking).toMatchObject({ type: "thinking", thinking: "The user wants the weather." });
      expect(thinking?.signature).toEqual(expect.any(String));
      expect(call).toMatchObject({ type: "tool_use", name: "get_weather" });
    },
  },
  {
    name: "max-tokens",
    script: [
      { chunks: ["A long answer that was cut"], finish: { reason: "length", raw: "max_output_tokens" } },
    ],
    expect: (c) => expect(message(c).stop_reason).toBe("max_tokens"),
  },
  {
    name: "stop-sequence",
    script: [{ chunks: ["Counting: 1, 2"], finish: { reason: "stop", raw: "stop_sequence" } }],
    body: { stop_sequences: [", 3"] },
    expect: (c) => {
      expect(message(c).stop_reason).toBe("stop_sequence");
      expect(message(c).content).toEqual([{ type: "text", text: "Counting: 1, 2" }]);
    },
  },
  {
    name: "tool-choice-any",
    script: [{ chunks: fragments(`I will call it. ${weather}`) }],
    body: { tools: [WEATHER_TOOL], tool_choice: { type: "any" } },
    expect: (c) => {
      expect(message(c).content.map((b) => b.type)).toEqual(["text", "tool_use"]);
      expect(message(c).stop_reason).toBe("tool_use");
    },
  },
  {
    // Anthropic's compact edit past its trigger: the summary turn, then the answer over the summary.
    name: "compaction-then-answer",
    script: [
      {
        chunks: ["The user asked ", "about Paris."],
        usage: { inputTokens: 60_000, outputTokens: 5, totalTokens: 60_005 },
      },
      { chunks: ["Sunny in ", "Paris."], usage: { inputTokens: 40, outputTokens: 3, totalTokens: 43 } },
    ],
    body: {
      messages: [{ role: "user", content: `${"Paris weather please. ".repeat(14_000)}What now?` }],
      context_management: {
        edits: [
          { type: "clear_thinking_20251015", keep: "all" },
          { type: "compact_20260112", trigger: { type: "input_tokens", value: 50_000 } },
        ],
      },
    },
    expect: (c) => {
      expect(message(c).content).toEqual([
        { type: "compaction", content: "The user asked about Paris.", encrypted_content: null },
        { type: "text", text: "Sunny in Paris." },
      ]);
      expect(message(c).stop_reason).toBe("end_turn");
      expect(message(c).usage).toMatchObject({ input_tokens: 40, output_tokens: 3 });
    },
  },
  {
    name: "compaction-paused",
    script: [{ chunks: ["Summary so far."], usage: { inputTokens: 900, outputTokens: 4, totalTokens: 904 } }],
    body: { compaction: { type: "summarize" } },
    expect: (c) => {
      expect(message(c).content).toEqual([
        { type: "compaction", content: "Summary so far.", encrypted_content: null },
      ]);
      expect(message(c).stop_reason).toBe("compaction");
    },
  },
  {
    name: "error-mid-stream",
    script: [
      {
        chunks: ["Partial ", "answer"],
        errorAfterChunks: 1,
        error: new GatewayError("backend_unavailable", "codex app-server died mid-turn"),
      },
    ],
    expect: (c) => {
      expect(c).toMatchObject({
        kind: "error",
        error: { type: "overloaded_error", message: "codex app-server died mid-turn" },
      });
    },
  },
];

describe("golden Messages SSE transcripts", () => {
  let gateway: TestGateway | undefined;
  afterEach(() => gateway?.close());

  for (const c of CASES) {
    it(c.name, async () => {
      gateway = await startGateway(c.script);
      const res = await post(gateway, base({ stream: true, ...c.body }));
      expect(res.status).toBe(200);
      expect(res.headers.get("content-type")).toMatch(/^text\/event-stream/);
      expect(res.headers.get("request-id")).toMatch(/^req_/);
      const checked = checkMessagesStream(parseSseFrames(res.text));
      c.expect(checked);
      expectGolden(c.name, res.text);
    });
  }
});
