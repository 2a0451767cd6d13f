import OpenAI from "openai";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { lastUserText, type RecordedRequest, startE2E, toolCallText, transcriptOf } from "./e2e-gateway.js";

const weather = (city: string) => toolCallText("get_weather", { city });
const useTool = (city: string) => `<use_tool>\n<name>get_weather</name>\n<city>${city}</city>\n</use_tool>`;

// A 3 MB argument string (distinct lines, so a lost or repeated chunk shows), sent in 64 KiB pieces.
const bigContent = Array.from(
  { length: 32_000 },
  (_, i) => `line ${String(i).padStart(6, "0")} ${"x".repeat(85)}`,
).join("\n");
const bigBlock = toolCallText("write_file", { path: "big.txt", content: bigContent });
const bigChunks = Array.from({ length: Math.ceil(bigBlock.length / 65_536) }, (_, i) =>
  bigBlock.slice(i * 65_536, (i + 1) * 65_536),
);

/** The scripted model: each prompt names what it writes back. */
const model = (request: RecordedRequest) => {
  const input = lastUserText(request);
  if (input.includes("big file")) return { chunks: bigChunks };
  if (input.includes("broke the function-calling rules"))
    return { chunks: [weather("Paris")], usage: { inputTokens: 200, outputTokens: 20 } };
  if (input.includes("strict seat")) {
    const bad = toolCallText("get_weather", { city: 42 });
    return { chunks: [bad], usage: { inputTokens: 100, outputTokens: 10 } };
  }
  if (input.includes("three cities"))
    return {
      chunks: [weather("Paris"), weather("Rome"), weather("Oslo"), " and some text after"],
      usage: { inputTokens: 50, outputTokens: 5 },
    };
  if (input.includes("use tool"))
    return { chunks: ["Checking.\n", useTool("Paris").slice(0, 20), useTool("Paris").slice(20)] };
  return { text: "Just an answer.", usage: { inputTokens: 40, outputTokens: 4 } };
};

const weatherTool = {
  type: "function" as const,
  function: {
    name: "get_weather",
    parameters: { type: "object", properties: { city: { type: "string" } }, required: ["city"] },
  },
};
const strictTool = {
  type: "function" as const,
  function: {
    ...weatherTool.function,
    strict: true,
    parameters: { ...weatherTool.function.parameters, additionalProperties: false },
  },
};
const user = (content: string) => [{ role: "user" as const, content }];

const gatewayWith = (env: Record<string, string>) => {
  const state = {} as { e2e: Awaited<ReturnType<typeof startE2E>>; client: OpenAI };
  beforeAll(async () => {
    state.e2e = await startE2E(model, env);
    state.client = new OpenAI({ baseURL: `${state.e2e.url}/v1`, apiKey: "sk-e2e", maxRetries: 0 });
  }, 60_000);
  afterAll(() => state.e2e?.close());
  return state;
};

const argsOf = (calls: OpenAI.ChatCompletionMessageToolCall[] | undefined) =>
  (calls ?? []).map((c) => (c.type === "function" ? JSON.parse(c.function.arguments) : undefined));

describe("tool policies at the wire (real codex app-server)", { timeout: 60_000 }, () => {
  describe("defaults (stop after a burst, no cap)", () => {
    const g = gatewayWith({});

    it("tools: [] with an ordinary prompt is a plain answer, and the model is taught no tools", async () => {
      const res = await g.client.chat.completions.create({ model: "m", messages: user("hello"), tools: [] });
      expect(res.choices[0]?.message.content).toBe("Just an answer.");
      expect(res.choices[0]?.finish_reason).toBe("stop");
      expect(res.choices[0]?.message.tool_calls ?? []).toEqual([]);
      expect(transcriptOf(g.e2e.provider.requests.at(-1)!)).not.toContain("<tool_call>");
    });

    it("usage after stop-after-tools: the stopped turn still reports the backend's numbers", async () => {
      const res = await g.client.chat.completions.create({
        model: "m",
        messages: user("three cities please"),
        tools: [weatherTool],
      });
      expect(argsOf(res.choices[0]?.message.tool_calls)).toEqual([
        { city: "Paris" },
        { city: "Rome" },
        { city: "Oslo" },
      ]);
      expect(res.choices[0]?.message.content ?? "").not.toContain("some text after");
      expect(res.usage).toMatchObject({ prompt_tokens: 50, completion_tokens: 5, total_tokens: 55 });
    });

    it("usage across a corrective turn is the sum of both backend turns", async () => {
      const res = await g.client.chat.completions.create({
        model: "m",
        messages: user("book a strict seat"),
        tools: [strictTool],
      });
      expect(argsOf(res.choices[0]?.message.tool_calls)).toEqual([{ city: "Paris" }]);
      expect(res.usage).toMatchObject({ prompt_tokens: 300, completion_tokens: 30, total_tokens: 330 });
    });

    it("<use_tool> output mode, non-streaming: the call as tool_calls and as a block in content", async () => {
      const res = await g.client.chat.completions.create(
        { model: "m", messages: user("use tool for Paris"), tools: [weatherTool] },
        { headers: { "x-proxy-output-mode": "obsidian-xml" } },
      );
      const message = res.choices[0]?.message;
      expect(argsOf(message?.tool_calls)).toEqual([{ city: "Paris" }]);
      expect(message?.content).toContain(useTool("Paris"));
      expect(transcriptOf(g.e2e.provider.requests.at(-1)!)).toContain("<use_tool>");
    });

    it("<use_tool> output mode, streaming: the same call and block, chunk by chunk", async () => {
      const stream = await g.client.chat.completions.create(
        { model: "m", messages: user("use tool for Paris, streamed"), tools: [weatherTool], stream: true },
        { headers: { "x-proxy-output-mode": "obsidian-xml" } },
      );
      let content = "";
      let args = "";
      let finish: string | null | undefined;
      for await (const chunk of stream) {
        content += chunk.choices[0]?.delta.content ?? "";
        args += chunk.choices[0]?.delta.tool_calls?.[0]?.function?.arguments ?? "";
        finish = chunk.choices[0]?.finish_reason ?? finish;
      }
      expect(JSON.parse(args)).toEqual({ city: "Paris" });
      expect(content).toContain(useTool("Paris"));
      expect(finish).toBe("tool_calls");
    });
  });

  describe("PROXY_STOP_AFTER_TOOLS_MODE=first", () => {
    const g = gatewayWith({ PROXY_STOP_AFTER_TOOLS_MODE: "first" });

    it("only the first call comes back and the backend turn is stopped", async () => {
      const res = await fetch(`${g.e2e.url}/v1/chat/completions`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ model: "m", messages: user("three cities"), tools: [weatherTool] }),
      });
      expect(res.headers.get("x-proxy-stop-after-tools-mode")).toBe("first");
      const body = (await res.json()) as OpenAI.ChatCompletion;
      expect(argsOf(body.choices[0]?.message.tool_calls)).toEqual([{ city: "Paris" }]);
      expect(body.choices[0]?.finish_reason).toBe("tool_calls");
    });
  });

  describe("PROXY_TOOL_BLOCK_MAX=2", () => {
    const g = gatewayWith({ PROXY_TOOL_BLOCK_MAX: "2" });

    it("two calls come back, the third is dropped and the truncation is said in a header", async () => {
      const res = await fetch(`${g.e2e.url}/v1/chat/completions`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({
          model: "m",
          messages: user("three cities"),
          tools: [weatherTool],
          stream: false,
        }),
      });
      const body = (await res.json()) as OpenAI.ChatCompletion;
      expect(argsOf(body.choices[0]?.message.tool_calls)).toEqual([{ city: "Paris" }, { city: "Rome" }]);
      expect(res.headers.get("x-proxy-tool-call-count")).toBe("2");
      expect(res.headers.get("x-proxy-tool-call-truncated")).toBe("true");
    });

    it("streaming: the SDK sees exactly two calls at indexes 0 and 1", async () => {
      const stream = await g.client.chat.completions.create({
        model: "m",
        messages: user("three cities, streamed"),
        tools: [weatherTool],
        stream: true,
      });
      const args = new Map<number, string>();
      for await (const chunk of stream)
        for (const call of chunk.choices[0]?.delta.tool_calls ?? [])
          args.set(call.index, (args.get(call.index) ?? "") + (call.function?.arguments ?? ""));
      expect([...args.entries()].map(([i, a]) => [i, JSON.parse(a)])).toEqual([
        [0, { city: "Paris" }],
        [1, { city: "Rome" }],
      ]);
    });
  });

  describe("PROXY_TOOL_BLOCK_MAX_BYTES=8388608", () => {
    const g = gatewayWith({ PROXY_TOOL_BLOCK_MAX_BYTES: "8388608" });
    const writeFile = {
      type: "function" as const,
      function: {
        name: "write_file",
        parameters: {
          type: "object",
          properties: { path: { type: "string" }, content: { type: "string" } },
          required: ["path", "content"],
        },
      },
    };

    it("a multi-megabyte argument string streamed in chunks arrives whole", async () => {
      expect(bigContent.length).toBeGreaterThan(3_000_000);
      const stream = await g.client.chat.completions.create({
        model: "m",
        messages: user("write the big file"),
        tools: [writeFile],
        stream: true,
      });
      let args = "";
      let deltas = 0;
      for await (const chunk of stream) {
        const piece = chunk.choices[0]?.delta.tool_calls?.[0]?.function?.arguments;
        if (piece) {
          args += piece;
          deltas++;
        }
      }
      expect(deltas).toBeGreaterThan(1);
      expect(JSON.parse(args)).toEqual({ path: "big.txt", content: bigContent });
    });
  });
});
