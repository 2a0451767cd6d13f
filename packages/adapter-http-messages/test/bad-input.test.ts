import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { post, startGateway, type TestGateway } from "./support/gateway.js";
import { base, WEATHER_TOOL } from "./support/scripts.js";

const user = (content: unknown) => ({ messages: [{ role: "user", content }] });

/** [what, body, the field the message must name]; every row is a 400 and no backend turn. */
const TABLE: ReadonlyArray<readonly [string, unknown, string]> = [
  ["body is not JSON", "{not json", "JSON"],
  ["body is not an object", "[1,2]", "body"],
  ["model missing", { max_tokens: 10, messages: [{ role: "user", content: "hi" }] }, "model"],
  ["model empty", base({ model: "" }), "model"],
  ["max_tokens missing", { model: "m", messages: [{ role: "user", content: "hi" }] }, "max_tokens"],
  ["max_tokens zero", base({ max_tokens: 0 }), "max_tokens"],
  ["max_tokens fractional", base({ max_tokens: 1.5 }), "max_tokens"],
  ["messages not an array", base({ messages: "hi" }), "messages"],
  ["messages empty", base({ messages: [] }), "messages"],
  [
    "too many stop_sequences (100,000 took 6.5 s of matching)",
    base({ stop_sequences: Array.from({ length: 257 }, (_, i) => `stop-${i}`) }),
    "stop_sequences",
  ],
  ["a stop sequence too long", base({ stop_sequences: ["ok", "x".repeat(1025)] }), "stop_sequences[1]"],
  ["unknown role", base({ messages: [{ role: "tool", content: "x" }] }), "messages[0].role"],
  ["content a number", base(user(42)), "messages[0].content"],
  ["unknown block type", base(user([{ type: "video", url: "x" }])), "messages[0].content[0].type"],
  ["text block without text", base(user([{ type: "text" }])), "messages[0].content[0].text"],
  [
    "image source type unknown",
    base(user([{ type: "image", source: { type: "ftp", url: "x" } }])),
    "messages[0].content[0].source.type",
  ],
  [
    "image from the Files API",
    base(user([{ type: "image", source: { type: "file", file_id: "file_1" } }])),
    "messages[0].content[0].source",
  ],
  [
    "base64 image without data",
    base(user([{ type: "image", source: { type: "base64", media_type: "image/png" } }])),
    "messages[0].content[0].source.data",
  ],
  [
    "PDF document",
    base(
      user([{ type: "document", source: { type: "base64", media_type: "application/pdf", data: "JVBE" } }]),
    ),
    "messages[0].content[0].source",
  ],
  [
    "tool_result without tool_use_id",
    base(user([{ type: "tool_result", content: "x" }])),
    "messages[0].content[0].tool_use_id",
  ],
  [
    "tool_result content block unknown",
    base(user([{ type: "tool_result", tool_use_id: "toolu_1", content: [{ type: "audio" }] }])),
    "messages[0].content[0].content[0].type",
  ],
  [
    "tool_use without name",
    base({ messages: [{ role: "assistant", content: [{ type: "tool_use", id: "toolu_1", input: {} }] }] }),
    "messages[0].content[0].name",
  ],
  ["system a number", base({ system: 7 }), "system"],
  ["system block not text", base({ system: [{ type: "image" }] }), "system[0].type"],
  ["tools not an array", base({ tools: { name: "x" } }), "tools"],
  ["tool name invalid", base({ tools: [{ ...WEATHER_TOOL, name: "get weather!" }] }), "tools[0].name"],
  ["tool without input_schema", base({ tools: [{ name: "get_weather" }] }), "tools[0].input_schema"],
  [
    "tool input_schema not an object",
    base({ tools: [{ ...WEATHER_TOOL, input_schema: "x" }] }),
    "tools[0].input_schema",
  ],
  [
    "tool input_schema false (no arguments satisfy it)",
    base({ tools: [{ ...WEATHER_TOOL, input_schema: false }] }),
    "tools[0].input_schema",
  ],
  ["duplicate tool names", base({ tools: [WEATHER_TOOL, WEATHER_TOOL] }), "tools[1].name"],
  [
    "tool_choice type unknown",
    base({ tools: [WEATHER_TOOL], tool_choice: { type: "required" } }),
    "tool_choice.type",
  ],
  [
    "tool_choice tool without name",
    base({ tools: [WEATHER_TOOL], tool_choice: { type: "tool" } }),
    "tool_choice.name",
  ],
  [
    "tool_choice names an unknown tool",
    base({ tools: [WEATHER_TOOL], tool_choice: { type: "tool", name: "get_time" } }),
    "tool_choice.name",
  ],
  ["tool_choice any without tools", base({ tool_choice: { type: "any" } }), "tool_choice"],
  [
    "disable_parallel_tool_use not a boolean",
    base({ tools: [WEATHER_TOOL], tool_choice: { type: "auto", disable_parallel_tool_use: "yes" } }),
    "tool_choice.disable_parallel_tool_use",
  ],
  ["thinking type unknown", base({ thinking: { type: "maybe" } }), "thinking.type"],
  [
    "thinking budget negative",
    base({ thinking: { type: "enabled", budget_tokens: -1 } }),
    "thinking.budget_tokens",
  ],
  ["stream not a boolean", base({ stream: "yes" }), "stream"],
  ["stop_sequences not an array", base({ stop_sequences: "END" }), "stop_sequences"],
  ["temperature a string", base({ temperature: "hot" }), "temperature"],
  ["top_k a string", base({ top_k: "many" }), "top_k"],
  ["metadata not an object", base({ metadata: "x" }), "metadata"],
];

describe("bad input: an Anthropic-shaped 400 naming the field, and no backend turn", () => {
  let gateway: TestGateway;
  beforeAll(async () => {
    gateway = await startGateway([{ chunks: ["fine"] }]);
  });
  afterAll(() => gateway?.close());

  for (const [what, body, field] of TABLE) {
    it(what, async () => {
      const before = gateway.backend.requests.length;
      const res = await post(gateway, body);
      expect(res.status).toBe(400);
      const json = JSON.parse(res.text);
      expect(json).toMatchObject({ type: "error", error: { type: "invalid_request_error" } });
      expect(json.error.message).toContain(field === "JSON" || field === "body" ? "" : `'${field}'`);
      if (field === "JSON") expect(json.error.message).toMatch(/JSON/);
      expect(res.headers.get("request-id")).toMatch(/^req_/);
      expect(gateway.backend.requests.length).toBe(before);
    });
  }

  it("count_tokens answers bad input the same way", async () => {
    const res = await post(
      gateway,
      { model: "m", messages: [{ role: "robot", content: "x" }] },
      {
        path: "/v1/messages/count_tokens",
      },
    );
    expect(res.status).toBe(400);
    expect(JSON.parse(res.text).error.message).toContain("'messages[0].role'");
  });

  it("after all of that, a good request still works", async () => {
    const res = await post(gateway, base());
    expect(res.status).toBe(200);
    expect(JSON.parse(res.text).content).toEqual([{ type: "text", text: "fine" }]);
  });
});
