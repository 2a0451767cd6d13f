import { GatewayError } from "@proxy/core";
import { afterEach, describe, expect, it, vi } from "vitest";
import { postChat, sseData, startGateway, type TestGateway } from "./support/gateway.js";
import { fragments, TIME_TOOL, toolBlock, USER_ASKS, WEATHER_TOOL } from "./support/scripts.js";

let gateway: TestGateway | undefined;
afterEach(async () => {
  await gateway?.close();
  gateway = undefined;
});

const base = { model: "gpt-test", messages: [...USER_ASKS], tools: [WEATHER_TOOL, TIME_TOOL] };
const weather = toolBlock("get_weather", { city: "Paris" });
const useToolXml = "<use_tool>\n<name>get_weather</name>\n<city>Paris</city>\n</use_tool>";

describe("output modes", () => {
  it("obsidian-xml (header) sends the <use_tool> block as content alongside tool_calls", async () => {
    gateway = await startGateway([{ chunks: fragments(`Checking.\n${useToolXml}`, 9) }]);
    const res = await postChat(gateway, base, { "x-proxy-output-mode": "obsidian-xml" });
    expect(res.status).toBe(200);
    expect(res.headers.get("x-proxy-output-mode")).toBe("obsidian-xml");
    const message = JSON.parse(res.text).choices[0].message;
    expect(message.content).toBe(`Checking.\n${useToolXml}\n`);
    expect(message.tool_calls).toEqual([
      { id: "call_1", type: "function", function: { name: "get_weather", arguments: '{"city":"Paris"}' } },
    ]);
  });

  it("the header overrides the configured default; an unknown header value falls back to it", async () => {
    gateway = await startGateway([{ chunks: weather }], { settings: { outputMode: "obsidian-xml" } });
    const json = await postChat(gateway, base, { "x-proxy-output-mode": "openai-json" });
    expect(JSON.parse(json.text).choices[0].message.content).toBeNull();
    const fallback = await postChat(gateway, base, { "x-proxy-output-mode": "yaml" });
    expect(fallback.headers.get("x-proxy-output-mode")).toBe("obsidian-xml");
  });
});

describe("legacy functions", () => {
  const legacy = {
    model: "gpt-test",
    messages: [...USER_ASKS],
    functions: [WEATHER_TOOL.function],
  };

  it("non-stream answers with function_call and finish_reason function_call", async () => {
    gateway = await startGateway([{ chunks: fragments(weather) }]);
    const choice = JSON.parse((await postChat(gateway, legacy)).text).choices[0];
    expect(choice.finish_reason).toBe("function_call");
    expect(choice.message).toMatchObject({
      role: "assistant",
      content: null,
      function_call: { name: "get_weather", arguments: '{"city":"Paris"}' },
    });
    expect(choice.message.tool_calls).toBeUndefined();
  });

  it("streams delta.function_call (name once, then arguments) and keeps only one call", async () => {
    gateway = await startGateway([
      { chunks: fragments(`${weather}${toolBlock("get_weather", { city: "Rome" })}`) },
    ]);
    const res = await postChat(gateway, { ...legacy, stream: true });
    const chunks = sseData(res.text)
      .filter((d) => d !== "[DONE]")
      .map((d) => JSON.parse(d));
    const deltas = chunks.map((c) => c.choices[0].delta.function_call).filter(Boolean);
    expect(deltas[0]).toEqual({ name: "get_weather", arguments: "" });
    expect(deltas.slice(1).every((d: { name?: string }) => d.name === undefined)).toBe(true);
    expect(deltas.map((d: { arguments: string }) => d.arguments).join("")).toBe('{"city":"Paris"}');
    expect(chunks.at(-1).choices[0].finish_reason).toBe("function_call");
    expect(res.text).toContain('"tool_call_truncated":true');
  });

  it("a role:function result is matched to the assistant's function_call by name", async () => {
    gateway = await startGateway([{ chunks: "Sunny." }]);
    await postChat(gateway, {
      ...legacy,
      messages: [
        ...USER_ASKS,
        {
          role: "assistant",
          content: null,
          function_call: { name: "get_weather", arguments: '{"city":"Paris"}' },
        },
        { role: "function", name: "get_weather", content: "sunny, 21C" },
      ],
    });
    expect(gateway.backend.requests[0]?.input).toEqual([
      { type: "text", text: '[function_call_output call_id="call_fn_1" output="sunny, 21C"]' },
    ]);
  });
});

describe("policies passed through to the core", () => {
  it("parallel_tool_calls:false keeps one call and reports the truncation in headers", async () => {
    gateway = await startGateway([
      { chunks: fragments(`${weather}\n${toolBlock("get_time", { tz: "UTC" })}`) },
    ]);
    const res = await postChat(gateway, { ...base, parallel_tool_calls: false });
    expect(JSON.parse(res.text).choices[0].message.tool_calls).toHaveLength(1);
    expect(res.headers.get("x-proxy-tool-call-count")).toBe("1");
    expect(res.headers.get("x-proxy-tool-call-truncated")).toBe("true");
  });

  it("a strict violation that survives the corrective retry is a 422 for non-stream requests", async () => {
    gateway = await startGateway([{ chunks: toolBlock("get_weather", { town: "Paris" }) }]);
    const strict = { ...WEATHER_TOOL, function: { ...WEATHER_TOOL.function, strict: true } };
    const res = await postChat(gateway, { ...base, tools: [strict] });
    expect(res.status).toBe(422);
    expect(JSON.parse(res.text).error).toMatchObject({ code: "tool_call_validation_failed", param: null });
    expect(gateway.backend.requests).toHaveLength(2);
  });
});

describe("request mapping", () => {
  it("passes system text, images, json_schema, token limit and reasoning effort to the backend", async () => {
    gateway = await startGateway([{ chunks: '{"ok":true}' }]);
    const schema = { type: "object", properties: { ok: { type: "boolean" } }, required: ["ok"] };
    const res = await postChat(gateway, {
      model: "gpt-test",
      messages: [
        { role: "system", content: "You are terse." },
        {
          role: "user",
          content: [
            { type: "text", text: "What is this?" },
            { type: "image_url", image_url: { url: "data:image/png;base64,AAAA", detail: "low" } },
          ],
        },
      ],
      response_format: { type: "json_schema", json_schema: { name: "answer", schema, strict: true } },
      max_completion_tokens: 99,
      reasoning_effort: "low",
    });
    expect(res.status).toBe(200);
    const sent = gateway.backend.requests[0]!;
    expect(sent.instructions).toContain("You are terse.");
    expect(sent.input).toEqual([
      { type: "text", text: "What is this?" },
      { type: "image", url: "data:image/png;base64,AAAA", detail: "low" },
    ]);
    expect(sent.outputSchema).toEqual(schema);
    expect(sent.maxOutputTokens).toBe(99);
    expect(sent.reasoningEffort).toBe("low");
  });

  it("reasoning is sent as reasoning_content in both shapes", async () => {
    gateway = await startGateway([{ reasoning: ["Thinking", " hard"], chunks: ["Done."] }]);
    const json = JSON.parse((await postChat(gateway, base)).text);
    expect(json.choices[0].message).toMatchObject({ content: "Done.", reasoning_content: "Thinking hard" });
    const stream = await postChat(gateway, { ...base, stream: true });
    const reasoning = sseData(stream.text)
      .filter((d) => d !== "[DONE]")
      .map((d) => JSON.parse(d).choices[0]?.delta.reasoning_content ?? "")
      .join("");
    expect(reasoning).toBe("Thinking hard");
  });
});

describe("errors, observer and cancellation", () => {
  it("a failure after the backend started is an HTTP error for non-stream requests", async () => {
    gateway = await startGateway([
      {
        chunks: ["a", "b"],
        errorAfterChunks: 1,
        error: new GatewayError("timeout", "The backend hit the idle timeout."),
      },
    ]);
    const res = await postChat(gateway, base);
    expect(res.status).toBe(504);
    expect(JSON.parse(res.text).error).toEqual({
      message: "The backend hit the idle timeout.",
      type: "server_error",
      param: null,
      code: "timeout",
    });
  });

  it("tells the observer exactly once per request, with the outcome", async () => {
    gateway = await startGateway([{ chunks: fragments(weather) }]);
    await postChat(gateway, { ...base, stream: true });
    await postChat(gateway, base);
    await postChat(gateway, { model: "gpt-test" });
    expect(gateway.summaries).toHaveLength(3);
    expect(gateway.summaries[0]).toMatchObject({
      api: "chat",
      model: "gpt-test",
      stream: true,
      finish: "tool_calls",
    });
    expect(gateway.summaries[0]?.telemetry.callsEmitted).toBe(1);
    expect(gateway.summaries[1]).toMatchObject({
      stream: false,
      outputMode: "openai-json",
      finish: "tool_calls",
    });
    expect(gateway.summaries[2]?.error?.kind).toBe("invalid_request");
  });

  it("a non-stream client that hangs up stops the backend turn", async () => {
    // A model that accepted the turn and then goes silent (the delay only ends when the turn is aborted).
    gateway = await startGateway([{ chunks: ["never", " sent"], delayMs: 600_000 }]);
    const controller = new AbortController();
    const pending = fetch(`${gateway.baseURL}/chat/completions`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify(base),
      signal: controller.signal,
    }).catch(() => undefined);
    const g = gateway;
    await vi.waitFor(() => expect(g.backend.active()).toBe(1));
    controller.abort();
    await pending;
    await vi.waitFor(() => expect(g.backend.aborts()).toBe(1));
    await vi.waitFor(() => expect(g.summaries.map((s) => s.error?.kind)).toEqual(["cancelled"]));
  });
});

describe("cut-off tool calls are never emitted as complete", () => {
  const DELETE_TOOL = {
    type: "function" as const,
    function: {
      name: "delete_path",
      description: "Deletes a file or directory",
      parameters: { type: "object", properties: { path: { type: "string" } }, required: ["path"] },
    },
  };
  const ask = { model: "gpt-test", messages: [...USER_ASKS], tools: [DELETE_TOOL] };
  const cutOff = '<tool_call>{"name":"delete_path","arguments":"{\\"path\\":\\"/home/user/';

  it("streaming: a call cut off by the end of the stream is an error, never a tool_calls finish", async () => {
    gateway = await startGateway([{ chunks: fragments(`Cleaning up.\n${cutOff}`) }]);
    const res = await postChat(gateway, { ...ask, stream: true });
    const data = sseData(res.text).map((d) => (d === "[DONE]" ? d : JSON.parse(d)));
    const finishes = data.flatMap((d) =>
      d === "[DONE]" ? [] : (d.choices ?? []).map((c: { finish_reason: unknown }) => c.finish_reason),
    );
    expect(finishes.filter((f: unknown) => f !== null)).toEqual([]);
    expect(data).not.toContain("[DONE]");
    expect(data.at(-1)).toEqual({
      error: expect.objectContaining({ type: "invalid_response_error", code: "tool_call_incomplete" }),
    });
    expect(gateway.summaries[0]?.telemetry.callsEmitted).toBe(0);
  });

  it("non-stream: the same reply is its text with finish_reason stop, never a tool_calls answer", async () => {
    // Nothing reached the client before the block broke off: it was never a call, so it stays text.
    gateway = await startGateway([{ chunks: fragments(cutOff) }]);
    const res = await postChat(gateway, ask);
    expect(res.status).toBe(200);
    const choice = JSON.parse(res.text).choices[0];
    expect(choice.finish_reason).toBe("stop");
    expect(choice.message.tool_calls).toBeUndefined();
    expect(choice.message.content).toBe(cutOff);
  });

  it("a block cut off before any of its call was sent is plain text with finish_reason stop", async () => {
    const early = '<tool_call>{"name":"delete_path","argu';
    gateway = await startGateway([{ chunks: fragments(early) }]);
    const choice = JSON.parse((await postChat(gateway, ask)).text).choices[0];
    expect(choice.finish_reason).toBe("stop");
    expect(choice.message.content).toBe(early);
    expect(choice.message.tool_calls).toBeUndefined();
  });

  it("a block over the size limit is never a shortened call: streamed an error, non-streamed text", async () => {
    const big = `<tool_call>{"name":"delete_path","arguments":{"path":"/home/${"x".repeat(200)}"}}</tool_call>`;
    gateway = await startGateway([{ chunks: fragments(big) }, { chunks: fragments(big) }], {
      settings: { maxBlockBytes: 64 },
    });
    const streamed = await postChat(gateway, { ...ask, stream: true });
    expect(streamed.text).toContain('"code":"tool_call_too_large"');
    expect(streamed.text).not.toContain('"finish_reason":"tool_calls"');
    const choice = JSON.parse((await postChat(gateway, ask)).text).choices[0];
    expect(choice.message.tool_calls).toBeUndefined();
    expect(choice.message.content).toBe(big);
  });
});
