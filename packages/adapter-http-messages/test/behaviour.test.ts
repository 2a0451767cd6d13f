import { GatewayError } from "@proxy/core";
import { afterEach, describe, expect, it } from "vitest";
import { checkMessagesStream, parseSseFrames } from "../src/testing/index.js";
import { post, startGateway, type TestGateway } from "./support/gateway.js";
import { base, WEATHER_TOOL } from "./support/scripts.js";

describe("Messages surface behaviour", () => {
  let gateway: TestGateway | undefined;
  afterEach(() => gateway?.close());

  it("sends `event: ping` during backend silence, inside a valid stream", async () => {
    gateway = await startGateway([{ chunks: ["slow", " answer"], delayMs: 120 }], { keepAliveMs: 30 });
    const res = await post(gateway, base({ stream: true }));
    const checked = checkMessagesStream(parseSseFrames(res.text));
    expect(checked.kind === "message" && checked.pings).toBeGreaterThan(0);
    expect(res.text).toContain('event: ping\ndata: {"type":"ping"}\n\n');
  });

  it("stop_sequences cut the text across delta boundaries and end with stop_reason stop_sequence", async () => {
    for (const stream of [true, false]) {
      gateway = await startGateway([{ chunks: ["Counting: 1, 2", ", 3, 4"] }]);
      const res = await post(gateway, base({ stream, stop_sequences: [", 3"] }));
      expect(res.status).toBe(200);
      if (stream) {
        const checked = checkMessagesStream(parseSseFrames(res.text));
        expect(checked.kind === "message" && checked.message.content).toEqual([
          { type: "text", text: "Counting: 1, 2" },
        ]);
        expect(checked.kind === "message" && checked.message.stop_reason).toBe("stop_sequence");
        expect(res.text).toContain('"stop_sequence":", 3"');
      } else {
        const message = JSON.parse(res.text);
        expect(message.content).toEqual([{ type: "text", text: "Counting: 1, 2" }]);
        expect(message).toMatchObject({ stop_reason: "stop_sequence", stop_sequence: ", 3" });
      }
      await gateway.close();
      gateway = undefined;
    }
  });

  it("a refusal before the first byte is an HTTP status, streaming or not", async () => {
    const overloaded = new GatewayError("overloaded", "Too many requests in flight.", {
      retryAfterSeconds: 2,
    });
    gateway = await startGateway([{ chunks: [], startError: overloaded }]);
    for (const stream of [true, false]) {
      const res = await post(gateway, base({ stream }));
      expect(res.status).toBe(529);
      expect(res.headers.get("retry-after")).toBe("2");
      expect(JSON.parse(res.text)).toMatchObject({
        type: "error",
        error: { type: "overloaded_error", message: "Too many requests in flight." },
      });
    }
  });

  it("a failure mid-turn without streaming is an HTTP error, not a partial message", async () => {
    gateway = await startGateway([
      { chunks: ["a", "b"], errorAfterChunks: 1, error: new GatewayError("backend_error", "codex failed") },
    ]);
    const res = await post(gateway, base());
    expect(res.status).toBe(500);
    expect(JSON.parse(res.text)).toMatchObject({
      type: "error",
      error: { type: "api_error", message: "codex failed" },
    });
  });

  it("a tool choice still unmet after the corrective turn is a 500 api_error naming it", async () => {
    gateway = await startGateway([{ chunks: ["I would rather not call anything."] }]);
    const res = await post(
      gateway,
      base({ tools: [WEATHER_TOOL], tool_choice: { type: "tool", name: "get_weather" } }),
    );
    expect(res.status).toBe(500);
    const body = JSON.parse(res.text);
    expect(body.error.type).toBe("api_error");
    expect(body.error.message).toContain("get_weather");
    expect(gateway.backend.requests).toHaveLength(2);
  });

  it("a client that goes away mid-stream stops the backend turn", async () => {
    gateway = await startGateway([{ chunks: ["a", "b", "c"], hangAfterChunks: 1 }]);
    const controller = new AbortController();
    const res = await fetch(`${gateway.url}/v1/messages`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify(base({ stream: true })),
      signal: controller.signal,
    });
    const reader = res.body!.getReader();
    await reader.read();
    controller.abort();
    const started = Date.now();
    while (gateway.backend.aborts() === 0 && Date.now() - started < 2000)
      await new Promise((r) => setTimeout(r, 10));
    expect(gateway.backend.aborts()).toBe(1);
    await new Promise((r) => setTimeout(r, 20));
    expect(gateway.summaries.at(-1)).toMatchObject({ api: "messages", error: { kind: "cancelled" } });
  });

  it("the backend's reasoning is a thinking block only when the client enabled thinking, as Anthropic", async () => {
    const script = { chunks: ["Hi"], reasoning: ["hmm"] };
    const served = await startGateway([script, script, script]);
    gateway = served;
    const types = async (body: Record<string, unknown>) =>
      (
        JSON.parse((await post(served, base({ stream: false, ...body }))).text) as {
          content: Array<{ type: string }>;
        }
      ).content.map((b) => b.type);
    expect(await types({})).toEqual(["text"]);
    expect(await types({ thinking: { type: "disabled" } })).toEqual(["text"]);
    expect(await types({ thinking: { type: "adaptive" } })).toEqual(["thinking", "text"]);
  });

  it("stream:false answers with a whole Message (Claude Code's fallback)", async () => {
    gateway = await startGateway([{ chunks: ["Hi ", "there"], reasoning: ["hmm"] }]);
    const thinking = { type: "enabled", budget_tokens: 1024 };
    const res = await post(gateway, base({ stream: false, thinking }));
    expect(res.status).toBe(200);
    expect(JSON.parse(res.text)).toEqual({
      id: "msg_1",
      type: "message",
      role: "assistant",
      model: "claude-sonnet-4-5",
      content: [
        { type: "thinking", thinking: "hmm", signature: expect.any(String) },
        { type: "text", text: "Hi there" },
      ],
      stop_reason: "end_turn",
      stop_sequence: null,
      usage: {
        input_tokens: 10,
        output_tokens: 5,
        cache_creation_input_tokens: 0,
        cache_read_input_tokens: 0,
      },
    });
  });

  it("images reach the backend: base64 as a data URL, URL sources as they are, tool-result images after it", async () => {
    gateway = await startGateway([{ chunks: ["I see it."] }]);
    const png = { type: "base64", media_type: "image/png", data: "iVBORw0KGgo=" };
    const res = await post(
      gateway,
      base({
        tools: [WEATHER_TOOL],
        messages: [
          { role: "user", content: "look" },
          {
            role: "assistant",
            content: [{ type: "tool_use", id: "toolu_9", name: "get_weather", input: {} }],
          },
          {
            role: "user",
            content: [
              { type: "tool_result", tool_use_id: "toolu_9", content: [{ type: "image", source: png }] },
              { type: "image", source: { type: "url", url: "https://example.com/cat.png" } },
              { type: "text", text: "What are these?" },
            ],
          },
        ],
      }),
    );
    expect(res.status).toBe(200);
    const seen = JSON.stringify(gateway.backend.requests.at(-1));
    expect(seen).toContain("data:image/png;base64,iVBORw0KGgo=");
    expect(seen).toContain("https://example.com/cat.png");
    expect(seen).toContain("call_9"); // the client's `toolu_9`, as the backend's own call id
  });

  it("native tool mode: the backend's own function calls become tool_use blocks", async () => {
    gateway = await startGateway(
      [
        {
          chunks: ["Checking. "],
          toolCalls: [
            {
              callId: "call_up1",
              name: "get_weather",
              arguments: '{"city":"Paris"}',
              chunks: ['{"city":', '"Paris"}'],
            },
          ],
        },
      ],
      { nativeTools: true, settings: { toolMode: "native" } },
    );
    const res = await post(gateway, base({ stream: true, tools: [WEATHER_TOOL] }));
    const checked = checkMessagesStream(parseSseFrames(res.text));
    expect(checked.kind === "message" && checked.message.content).toEqual([
      { type: "text", text: "Checking. " },
      {
        type: "tool_use",
        id: expect.stringMatching(/^toolu_/),
        name: "get_weather",
        input: { city: "Paris" },
      },
    ]);
    expect(gateway.backend.requests.at(-1)?.tools?.tools.map((t) => t.name)).toEqual(["get_weather"]);
  });
});
