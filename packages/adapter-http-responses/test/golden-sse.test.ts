import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { GatewayError } from "@proxy/core";
import type { ScriptedTurn } from "@proxy/core/testing";
import { afterEach, describe, expect, it } from "vitest";
import { postRaw, startGateway, type TestGateway } from "./support/gateway.js";
import { fragments, MODEL, TIME_TOOL, toolBlock, WEATHER_TOOL } from "./support/scripts.js";
import { parseSse, validateResponsesStream } from "./support/sse.js";

/**
 * Golden SSE transcripts: deterministic ids and clock, byte-compared with the committed
 * `__fixtures__/<name>.sse`. Re-record with `UPDATE_GOLDEN=1 pnpm vitest run --project
 * adapter-http-responses` and review the diff. Every transcript is also run through the validator.
 */
const fixture = (name: string) => fileURLToPath(new URL(`./__fixtures__/${name}.sse`, import.meta.url));

const STRICT_WEATHER = { ...WEATHER_TOOL, strict: true };
const weather = toolBlock("get_weather", { city: "Paris" });

interface Case {
  readonly name: string;
  readonly script: ScriptedTurn[];
  readonly tools?: unknown[];
}

const CASES: Case[] = [
  { name: "text-only", script: [{ chunks: fragments("Hello! How can I help you today?") }] },
  { name: "one-call", script: [{ chunks: fragments(weather) }], tools: [WEATHER_TOOL] },
  {
    name: "three-calls",
    script: [
      {
        chunks: fragments(
          toolBlock("get_weather", { city: "Paris" }) +
            toolBlock("get_weather", { city: "Oslo" }) +
            toolBlock("get_time", { tz: "Europe/Oslo" }),
        ),
      },
    ],
    tools: [WEATHER_TOOL, TIME_TOOL],
  },
  {
    name: "text-and-call",
    script: [{ chunks: fragments(`Let me check the weather. ${weather}`) }],
    tools: [WEATHER_TOOL],
  },
  {
    name: "reasoning-and-call",
    script: [{ reasoning: ["The user wants", " the weather in Paris."], chunks: fragments(weather) }],
    tools: [WEATHER_TOOL],
  },
  {
    // A strict tool whose arguments stay invalid after the corrective retry.
    name: "strict-failure",
    script: [{ chunks: fragments(`Checking. ${toolBlock("get_weather", { city: 42 })}`) }],
    tools: [STRICT_WEATHER],
  },
  {
    name: "response-failed",
    script: [
      {
        chunks: ["Partial ", "answer ", "never finished"],
        errorAfterChunks: 2,
        error: new GatewayError("backend_error", "The backend connection was lost."),
      },
    ],
  },
  {
    name: "response-incomplete",
    script: [
      {
        chunks: fragments("A long answer that ran out of tok"),
        finish: { reason: "length", raw: "max_output_tokens" },
      },
    ],
  },
];

let gateway: TestGateway | undefined;
afterEach(async () => {
  await gateway?.close();
  gateway = undefined;
});

describe("golden SSE transcripts", () => {
  for (const c of CASES) {
    it(`${c.name}.sse is byte-identical and valid`, async () => {
      gateway = await startGateway(c.script);
      const body = {
        model: MODEL,
        input: "What is the weather in Paris?",
        stream: true,
        ...(c.tools ? { tools: c.tools } : {}),
      };
      const res = await postRaw(`${gateway.baseURL}/responses`, body);
      expect(res.status).toBe(200);
      expect(res.headers.get("content-type")).toMatch(/^text\/event-stream/);
      expect(validateResponsesStream(parseSse(res.text))).toEqual([]);
      if (process.env.UPDATE_GOLDEN === "1") writeFileSync(fixture(c.name), res.text);
      expect(existsSync(fixture(c.name)), `missing fixture; record it with UPDATE_GOLDEN=1`).toBe(true);
      expect(res.text).toBe(readFileSync(fixture(c.name), "utf8"));
    });
  }
});

describe("the validator itself", () => {
  const valid = () => readFileSync(fixture("text-and-call"), "utf8");

  it("rejects a gap in sequence_number", () => {
    const frames = parseSse(valid());
    const broken = frames.map((f, i) => (i === 3 ? { ...f, data: { ...f.data, sequence_number: 99 } } : f));
    expect(validateResponsesStream(broken).join()).toMatch(/sequence_number 99/);
  });

  it("rejects a top-level call_id on function_call_arguments.done (call ids live on the item)", () => {
    const frames = parseSse(valid()).map((f) =>
      f.data.type === "response.function_call_arguments.done"
        ? { ...f, data: { ...f.data, call_id: "call_1" } }
        : f,
    );
    expect(validateResponsesStream(frames).join()).toMatch(/fields/);
  });

  it("rejects response.completed whose output misses an item", () => {
    const frames = parseSse(valid()).map((f) =>
      f.data.type === "response.completed"
        ? { ...f, data: { ...f.data, response: { ...(f.data.response as object), output: [] } } }
        : f,
    );
    expect(validateResponsesStream(frames).join()).toMatch(/output differs/);
  });

  it("rejects a text delta before its content part", () => {
    const frames = parseSse(valid()).filter((f) => f.data.type !== "response.content_part.added");
    expect(validateResponsesStream(frames).length).toBeGreaterThan(0);
  });
});
