import { GatewayError } from "@proxy/core";
import { afterEach, describe, expect, it, vi } from "vitest";
import { postRaw, startGateway, type TestGateway } from "./support/gateway.js";
import { fragments, MODEL, promptText, toolBlock, WEATHER_TOOL } from "./support/scripts.js";
import { parseSse, validateResponsesStream } from "./support/sse.js";

let gateway: TestGateway | undefined;
afterEach(async () => {
  await gateway?.close();
  gateway = undefined;
});

const post = (body: unknown, headers: Record<string, string> = {}) =>
  postRaw(`${gateway!.baseURL}/responses`, body, headers);
const json = async (body: unknown, headers: Record<string, string> = {}) => {
  const res = await post(body, headers);
  return { status: res.status, body: JSON.parse(res.text) };
};
const weather = toolBlock("get_weather", { city: "Paris" });
type FinalOutput = Array<{ type: string; id: string; content?: Array<{ text: string }> }>;
/** `response.output` of the stream's terminal event. */
const finalOutput = (frames: ReturnType<typeof parseSse>): FinalOutput =>
  (frames.at(-1)?.data.response as { output: FinalOutput } | undefined)?.output ?? [];
const CHECKPOINT =
  "You are performing a CONTEXT CHECKPOINT COMPACTION. Create a handoff summary for another LLM.";

describe("compaction", () => {
  it("compaction_trigger (stream) is answered with exactly one compaction item holding the backend's summary", async () => {
    gateway = await startGateway([{ chunks: fragments("User ran `echo big`; output was big.") }]);
    const res = await post({
      model: MODEL,
      stream: true,
      tools: [WEATHER_TOOL],
      input: [{ role: "user", content: "run it" }, { type: "compaction_trigger" }],
    });
    const frames = parseSse(res.text);
    expect(validateResponsesStream(frames)).toEqual([]);
    const done = frames.filter((f) => f.data.type === "response.output_item.done").map((f) => f.data.item);
    expect(done).toEqual([
      { type: "compaction", id: "cmp_1", encrypted_content: "User ran `echo big`; output was big." },
    ]);
    expect(frames.at(-1)?.data.type).toBe("response.completed");
    const request = gateway.backend.requests[0]!;
    expect(promptText(request)).toMatch(/handoff summary/);
    expect(request.instructions).not.toContain("get_weather"); // no tools offered for a summary
  });

  it("a later request carrying that compaction item shows the summary to the backend", async () => {
    gateway = await startGateway([{ chunks: "Continuing." }]);
    const { status } = await json({
      model: MODEL,
      input: [
        { type: "compaction", id: "cmp_1", encrypted_content: "SUMMARY-XYZ: user wants Paris weather" },
        { role: "user", content: "go on" },
      ],
    });
    expect(status).toBe(200);
    expect(promptText(gateway.backend.requests[0]!)).toContain("SUMMARY-XYZ: user wants Paris weather");
  });

  it("codex's inline compaction prompt with tools:[] is answered with text even if the model writes a call", async () => {
    gateway = await startGateway([{ chunks: fragments(`Summary so far. ${weather}`) }]);
    const { body } = await json({
      model: MODEL,
      tools: [],
      input: [
        { type: "additional_tools", tools: [WEATHER_TOOL] },
        { role: "user", content: "weather?" },
        { role: "user", content: [{ type: "input_text", text: CHECKPOINT }] },
      ],
    });
    expect(body.output.map((o: { type: string }) => o.type)).toEqual(["message"]);
    expect(body.output[0].content[0].text).toContain("Summary so far.");
  });
});

describe("input mapping", () => {
  it("accepts codex-style items: foreign ids, developer messages, reasoning with content:null, custom tool calls, images", async () => {
    gateway = await startGateway([{ chunks: "ok" }]);
    const png =
      "data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==";
    const { status } = await json({
      model: MODEL,
      input: [
        {
          type: "message",
          id: "msg_foreign",
          role: "developer",
          content: [{ type: "input_text", text: "DEV-RULES" }],
        },
        { type: "message", id: "msg_u1", role: "user", content: [{ type: "input_text", text: "patch" }] },
        {
          type: "reasoning",
          id: "rs_9",
          summary: [{ type: "summary_text", text: "thinking" }],
          content: null,
          encrypted_content: "ENC",
        },
        {
          type: "custom_tool_call",
          id: "ctc_3",
          status: "completed",
          call_id: "call_3",
          name: "apply_patch",
          input: "*** Begin Patch",
        },
        { type: "custom_tool_call_output", id: "ctco_1", call_id: "call_3", output: "PATCH-APPLIED" },
        { type: "web_search_call", id: "ws_1", status: "completed" },
        { role: "assistant", content: [{ type: "output_text", text: "done", annotations: [] }] },
        {
          role: "user",
          content: [
            { type: "input_text", text: "describe" },
            { type: "input_image", image_url: png, detail: "high" },
          ],
        },
      ],
      tools: [
        WEATHER_TOOL,
        { type: "web_search", external_web_access: false },
        { type: "tool_search", execution: "client" },
      ],
      reasoning: { effort: "low", summary: "auto" },
      max_output_tokens: 256,
      text: {
        format: {
          type: "json_schema",
          name: "out",
          strict: true,
          schema: { type: "object", properties: {} },
        },
      },
      store: false,
      include: ["reasoning.encrypted_content"],
      prompt_cache_key: "k",
      client_metadata: { a: "b" },
      service_tier: "auto",
      truncation: "auto",
      temperature: 0.2,
      top_p: 1,
      user: "u",
      metadata: { x: "y" },
    });
    expect(status).toBe(200);
    const request = gateway.backend.requests[0]!;
    const prompt = promptText(request);
    for (const text of ["DEV-RULES", "PATCH-APPLIED", "describe", "get_weather"])
      expect(prompt).toContain(text);
    const parts = [...request.history.flatMap((m) => ("content" in m ? m.content : [])), ...request.input];
    expect(parts).toContainEqual({ type: "image", url: png, detail: "high" });
    expect(request.reasoningEffort).toBe("low");
    expect(request.maxOutputTokens).toBe(256);
    expect(request.outputSchema).toEqual({ type: "object", properties: {} });
  });

  it("exposes additional_tools and namespace functions; calls to them carry their namespace", async () => {
    const waitTool = {
      type: "function",
      name: "wait",
      parameters: { type: "object", properties: { cell_id: { type: "string" } } },
    };
    gateway = await startGateway([{ chunks: fragments(toolBlock("wait", { cell_id: "c1" })) }]);
    const { body } = await json({
      model: MODEL,
      input: [
        {
          type: "additional_tools",
          role: "developer",
          tools: [
            { type: "namespace", name: "functions", tools: [{ type: "custom", name: "exec" }, waitTool] },
          ],
        },
        { role: "user", content: "wait for it" },
      ],
    });
    expect(body.output).toEqual([
      {
        type: "function_call",
        id: "fc_1",
        call_id: "call_1",
        name: "wait",
        arguments: '{"cell_id":"c1"}',
        status: "completed",
        namespace: "functions",
      },
    ]);
  });
});

describe("item_reference", () => {
  it("resolves items this app issued (store not false) and drops unknown references", async () => {
    gateway = await startGateway([{ chunks: "FIRST-ANSWER" }, { chunks: "second" }]);
    await json({ model: MODEL, input: "one" });
    const { status } = await json({
      model: MODEL,
      input: [
        { role: "user", content: "one" },
        { type: "item_reference", id: "msg_1" },
        { type: "item_reference", id: "rs_unknown" },
        { role: "user", content: "two" },
      ],
    });
    expect(status).toBe(200);
    expect(promptText(gateway.backend.requests[1]!)).toContain("FIRST-ANSWER");
  });

  it("does not keep items of store:false responses", async () => {
    gateway = await startGateway([{ chunks: "PRIVATE" }, { chunks: "second" }]);
    await json({ model: MODEL, input: "one", store: false });
    await json({
      model: MODEL,
      input: [
        { type: "item_reference", id: "msg_1" },
        { role: "user", content: "two" },
      ],
    });
    expect(promptText(gateway.backend.requests[1]!)).not.toContain("PRIVATE");
  });
});

describe("output", () => {
  it("obsidian-xml output mode also emits the <use_tool> text as output_text", async () => {
    gateway = await startGateway([{ chunks: fragments(weather) }]);
    const res = await post(
      { model: MODEL, input: "weather?", tools: [WEATHER_TOOL], stream: true },
      { "x-proxy-output-mode": "obsidian-xml" },
    );
    const frames = parseSse(res.text);
    expect(validateResponsesStream(frames)).toEqual([]);
    const output = finalOutput(frames);
    expect(output.map((o) => o.type)).toEqual(["function_call", "message"]);
    expect(output[1]?.content?.[0]?.text).toBe(
      "<use_tool>\n<name>get_weather</name>\n<city>Paris</city>\n</use_tool>",
    );
    expect(gateway.summaries[0]?.outputMode).toBe("obsidian-xml");
  });

  it("text after a tool call opens a new message item when stop-after-tools is off", async () => {
    gateway = await startGateway([{ chunks: fragments(`Before. ${weather} After.`) }], {
      settings: { stopAfterTools: false },
    });
    const res = await post({ model: MODEL, input: "weather?", tools: [WEATHER_TOOL], stream: true });
    const frames = parseSse(res.text);
    expect(validateResponsesStream(frames)).toEqual([]);
    const output = finalOutput(frames);
    expect(output.map((o) => `${o.type}:${o.id}`)).toEqual([
      "message:msg_1",
      "function_call:fc_1",
      "message:msg_2",
    ]);
  });

  it("non-stream incomplete: 200 with status incomplete and incomplete_details", async () => {
    gateway = await startGateway([
      { chunks: "Cut sho", finish: { reason: "length", raw: "max_output_tokens" } },
    ]);
    const { status, body } = await json({ model: MODEL, input: "long please" });
    expect(status).toBe(200);
    expect(body.status).toBe("incomplete");
    expect(body.incomplete_details).toEqual({ reason: "max_output_tokens" });
    expect(body.output[0].status).toBe("incomplete");
  });

  it("non-stream failure after the backend started is an HTTP error in OpenAI's shape", async () => {
    gateway = await startGateway([
      { chunks: ["a", "b"], errorAfterChunks: 1, error: new GatewayError("backend_error", "lost") },
    ]);
    const { status, body } = await json({ model: MODEL, input: "hi" });
    expect(status).toBe(502);
    expect(body.error).toMatchObject({ message: "lost", code: "backend_error", type: "server_error" });
  });

  it("reports every request once to the observer with its finish", async () => {
    gateway = await startGateway([{ chunks: fragments(weather) }]);
    await json({ model: MODEL, input: "weather?", tools: [WEATHER_TOOL] });
    expect(gateway.summaries).toHaveLength(1);
    expect(gateway.summaries[0]).toMatchObject({
      api: "responses",
      model: MODEL,
      stream: false,
      finish: "tool_calls",
    });
    expect(gateway.summaries[0]?.telemetry.callsEmitted).toBe(1);
  });
});

describe("cancellation", () => {
  it("a client disconnect mid-stream aborts the backend turn", async () => {
    gateway = await startGateway([{ chunks: Array.from({ length: 200 }, (_, i) => `w${i} `), delayMs: 20 }]);
    const controller = new AbortController();
    const response = await fetch(`${gateway.baseURL}/responses`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ model: MODEL, input: "talk", stream: true }),
      signal: controller.signal,
    });
    const reader = response.body!.getReader();
    await reader.read(); // the stream is live
    controller.abort();
    await vi.waitFor(() => expect(gateway!.backend.aborts()).toBe(1), { timeout: 10_000, interval: 20 });
    await vi.waitFor(() => expect(gateway!.summaries).toHaveLength(1), { timeout: 10_000, interval: 20 });
  });
});

describe("cut-off tool calls are never emitted as complete", () => {
  const DELETE_TOOL = {
    type: "function" as const,
    name: "delete_path",
    description: "Deletes a file or directory",
    parameters: { type: "object", properties: { path: { type: "string" } }, required: ["path"] },
  };
  const ask = { model: MODEL, input: "clean up", tools: [DELETE_TOOL] };
  const cutOff = '<tool_call>{"name":"delete_path","arguments":"{\\"path\\":\\"/home/user/';

  it("streaming: a call cut off by the end of the stream ends in response.failed, with no completed call", async () => {
    gateway = await startGateway([{ chunks: fragments(`Cleaning up.\n${cutOff}`) }]);
    const frames = parseSse((await post({ ...ask, stream: true })).text);
    expect(validateResponsesStream(frames)).toEqual([]);
    const last = frames.at(-1)?.data as unknown as { type: string; response: { error: { code: string } } };
    expect(last.type).toBe("response.failed");
    expect(last.response.error.code).toBe("tool_call_incomplete");
    // The part already streamed is closed as incomplete, never as a completed call.
    const calls = frames.flatMap((f) =>
      f.data.type === "response.output_item.done" &&
      (f.data.item as { type: string }).type === "function_call"
        ? [(f.data.item as { status: string }).status]
        : [],
    );
    expect(calls).toEqual(["incomplete"]);
  });

  it("non-stream: the same reply is output text, never a function_call output item", async () => {
    // Nothing reached the client before the block broke off: it was never a call, so it stays text.
    gateway = await startGateway([{ chunks: fragments(cutOff) }]);
    const { status, body } = await json(ask);
    expect(status).toBe(200);
    expect(body.output.map((o: { type: string }) => o.type)).toEqual(["message"]);
    expect(body.output[0].content[0].text).toBe(cutOff);
  });

  it("a block cut off before any of its call was sent is output text and the response completes", async () => {
    const early = '<tool_call>{"name":"delete_path","argu';
    gateway = await startGateway([{ chunks: fragments(early) }]);
    const { status, body } = await json(ask);
    expect(status).toBe(200);
    expect(body.status).toBe("completed");
    expect(body.output.map((o: { type: string }) => o.type)).toEqual(["message"]);
    expect(body.output[0].content[0].text).toBe(early);
  });
});
