import OpenAI, { APIError } from "openai";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { lastUserText, type RecordedRequest, startE2E, toolCallText } from "./e2e-gateway.js";

const failed = { event: "failed", code: "server_error", message: "upstream fell over" } as const;
const call = toolCallText("get_weather", { city: "Paris" });

/** The scripted model streams its calls and then the upstream response fails (codex fails the turn). */
const model = (request: RecordedRequest) => {
  const input = lastUserText(request);
  if (input.includes("complete call")) return { chunks: ["Checking. ", call], fail: failed };
  if (input.includes("dropped connection"))
    return { chunks: [call, toolCallText("get_weather", { city: "Rome" })], truncate: true };
  if (input.includes("two calls"))
    return { chunks: [call, toolCallText("get_weather", { city: "Rome" })], fail: failed };
  // A complete call, then a block cut in the middle of its arguments: the client saw it start.
  if (input.includes("cut call"))
    return { chunks: [call, toolCallText("get_weather", { city: "Rome" }).slice(0, -15)], fail: failed };
  // No backend failure: the reply itself ends inside the second block (the gateway's own failure).
  if (input.includes("unfinished"))
    return { chunks: [call, toolCallText("get_weather", { city: "Rome" }).slice(0, -15)] };
  return { text: "ok" };
};

const tools = [
  {
    type: "function" as const,
    function: {
      name: "get_weather",
      parameters: { type: "object", properties: { city: { type: "string" } }, required: ["city"] },
    },
  },
];
const responsesTools = [
  {
    type: "function" as const,
    name: "get_weather",
    strict: false,
    parameters: { type: "object", properties: { city: { type: "string" } }, required: ["city"] },
  },
];

describe("a backend failure after complete tool calls (real codex app-server)", { timeout: 60_000 }, () => {
  let e2e: Awaited<ReturnType<typeof startE2E>>;
  let client: OpenAI;
  beforeAll(async () => {
    e2e = await startE2E(model);
    client = new OpenAI({ baseURL: `${e2e.url}/v1`, apiKey: "sk-e2e", maxRetries: 0 });
  }, 60_000);
  afterAll(() => e2e?.close());

  const user = (content: string) => [{ role: "user" as const, content }];
  /** What a streamed chat request to `content` fails with, read to its end (undefined: it did not fail). */
  const streamedFailure = async (content: string): Promise<unknown> => {
    const stream = await client.chat.completions.create({
      model: "m",
      messages: user(content),
      tools,
      stream: true,
    });
    return (async () => {
      for await (const _ of stream);
    })().then(
      () => undefined,
      (e: unknown) => e,
    );
  };

  it("chat streaming finishes with tool_calls and [DONE]; the failure is logged and counted", async () => {
    const res = await fetch(`${e2e.url}/v1/chat/completions`, {
      method: "POST",
      headers: { "content-type": "application/json", "x-request-id": "after-calls-1" },
      body: JSON.stringify({ model: "m", messages: user("complete call please"), tools, stream: true }),
    });
    const text = await res.text();
    expect(res.status).toBe(200);
    expect(text).not.toContain('"error"');
    expect(text.trimEnd().endsWith("data: [DONE]")).toBe(true);
    expect(text).toContain('"finish_reason":"tool_calls"');

    // The same through the SDK: the calls are usable.
    const stream = await client.chat.completions.create({
      model: "m",
      messages: user("complete call again"),
      tools,
      stream: true,
    });
    let args = "";
    let finish: string | null | undefined;
    for await (const chunk of stream) {
      args += chunk.choices[0]?.delta.tool_calls?.[0]?.function?.arguments ?? "";
      finish = chunk.choices[0]?.finish_reason ?? finish;
    }
    expect(finish).toBe("tool_calls");
    expect(JSON.parse(args)).toEqual({ city: "Paris" });

    const line = e2e.logs.find((l) => l.msg === "request" && l.requestId === "after-calls-1");
    expect(line).toMatchObject({ finish: "tool_calls", failureAfterCalls: expect.stringMatching(/./) });
    const metrics = await (await fetch(`${e2e.url}/metrics`)).text();
    expect(metrics).toMatch(/proxy_backend_failures_after_tool_calls_total\{api="chat",kind="\w+"\} 2/);
  });

  it("chat non-streaming answers 200 with every complete call", async () => {
    const res = await client.chat.completions.create({ model: "m", messages: user("two calls"), tools });
    const choice = res.choices[0]!;
    expect(choice.finish_reason).toBe("tool_calls");
    const calls = choice.message.tool_calls ?? [];
    expect(calls.map((c) => c.type === "function" && JSON.parse(c.function.arguments))).toEqual([
      { city: "Paris" },
      { city: "Rome" },
    ]);
  });

  it("a failure in the middle of a call keeps the error event (chat streaming)", async () => {
    expect(await streamedFailure("cut call please")).toBeInstanceOf(APIError);
  });

  it("non-streamed, a reply that ends inside a second call keeps the complete call; the cut block is never a call", async () => {
    const answer = await client.chat.completions.create({
      model: "m",
      messages: user("unfinished second call"),
      tools,
    });
    const choice = answer.choices[0];
    expect(choice?.finish_reason).toBe("tool_calls");
    const calls = (choice?.message.tool_calls ?? []).flatMap((c) =>
      c.type === "function" ? [c.function] : [],
    );
    expect(calls.map((f) => [f.name, JSON.parse(f.arguments)])).toEqual([["get_weather", { city: "Paris" }]]);
  });

  it("streamed, the same reply is a failure: the client saw the second call start", async () => {
    const error = await streamedFailure("unfinished second call, streamed");
    expect(error).toBeInstanceOf(APIError);
    expect((error as APIError).code).toBe("tool_call_incomplete");
  });

  it("responses streaming ends with response.completed holding the finished call", async () => {
    const stream = await client.responses.create({
      model: "m",
      input: "complete call via responses",
      tools: responsesTools,
      stream: true,
    });
    const types: string[] = [];
    let completed: OpenAI.Responses.Response | undefined;
    for await (const event of stream) {
      types.push(event.type);
      if (event.type === "response.completed") completed = event.response;
    }
    expect(types).not.toContain("response.failed");
    expect(types).not.toContain("error");
    expect(completed?.status).toBe("completed");
    const item = completed?.output.find((o) => o.type === "function_call");
    expect(item?.type === "function_call" && JSON.parse(item.arguments)).toEqual({ city: "Paris" });
  });

  it("responses streaming: two complete calls, then the backend fails → response.completed with both", async () => {
    const strictTools = responsesTools.map((t) => ({
      ...t,
      strict: true,
      parameters: { ...t.parameters, additionalProperties: false },
    }));
    for (const [input, tools] of [
      ["two calls via responses", responsesTools],
      ["two calls then a dropped connection", responsesTools],
      ["two calls via responses, strict", strictTools],
      ["two calls then a dropped connection, strict", strictTools],
    ] as const) {
      const stream = await client.responses.create({ model: "m", input, tools: [...tools], stream: true });
      const types: string[] = [];
      let completed: OpenAI.Responses.Response | undefined;
      for await (const event of stream) {
        types.push(event.type);
        if (event.type === "response.completed") completed = event.response;
      }
      expect(types, input).not.toContain("response.failed");
      expect(completed?.status, input).toBe("completed");
      const calls = completed?.output.filter((o) => o.type === "function_call") ?? [];
      expect(calls.map((c) => c.type === "function_call" && JSON.parse(c.arguments))).toEqual([
        { city: "Paris" },
        { city: "Rome" },
      ]);
      expect(completed?.usage, input).toBeDefined();
    }
  });

  it("responses non-streaming answers 200 with the call; beside a cut call and a failure, the complete call is kept", async () => {
    const ok = await client.responses.create({ model: "m", input: "complete call", tools: responsesTools });
    expect(ok.status).toBe("completed");
    expect(ok.output.some((o) => o.type === "function_call" && o.name === "get_weather")).toBe(true);
    const cut = await client.responses.create({ model: "m", input: "cut call", tools: responsesTools });
    const calls = cut.output.flatMap((o) => (o.type === "function_call" ? [JSON.parse(o.arguments)] : []));
    expect(calls).toEqual([{ city: "Paris" }]);
  });
});
