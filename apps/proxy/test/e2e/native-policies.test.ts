import OpenAI from "openai";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startE2E } from "./e2e-gateway.js";
import { nativeModel, toolsOf } from "./native-support.js";

const weatherSchema = {
  type: "object",
  properties: { city: { type: "string" } },
  required: ["city"],
  additionalProperties: false,
};
const weather = { type: "function" as const, function: { name: "get_weather", parameters: weatherSchema } };
const timeTool = {
  type: "function" as const,
  function: { name: "get_time", parameters: { type: "object", properties: { tz: { type: "string" } } } },
};
const bookTool = {
  type: "function" as const,
  function: {
    name: "book",
    strict: true,
    parameters: {
      type: "object",
      properties: { seat: { type: "string" } },
      required: ["seat"],
      additionalProperties: false,
    },
  },
};
const PNG =
  "data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==";

describe("native tool mode policies at the wire (real codex dynamic tools)", {
  timeout: 60_000,
}, () => {
  let e2e: Awaited<ReturnType<typeof startE2E>>;
  let client: OpenAI;
  const since = (n: number) => e2e.provider.requests.slice(n);
  beforeAll(async () => {
    e2e = await startE2E(nativeModel, { PROXY_TOOL_MODE: "auto" });
    client = new OpenAI({ baseURL: `${e2e.url}/v1`, apiKey: "sk-e2e", maxRetries: 0 });
  }, 60_000);
  afterAll(() => e2e?.close());

  it("tool_choice none: no tool is offered, and a call made anyway never reaches the client", async () => {
    const res = await client.chat.completions.create({
      model: "e2e-model",
      messages: [{ role: "user", content: "[none] just talk" }],
      tools: [weather],
      tool_choice: "none",
    });
    expect(toolsOf(since(0).find((r) => JSON.stringify(r.body).includes("[none]"))!)).toEqual([]);
    expect(res.choices[0]?.message.tool_calls ?? []).toEqual([]);
    expect(res.choices[0]?.finish_reason).toBe("stop");
  });

  it("tool_choice required: a text-only answer gets the corrective turn, then the call", async () => {
    const res = await client.chat.completions.create({
      model: "e2e-model",
      messages: [{ role: "user", content: "[required] anything" }],
      tools: [weather],
      tool_choice: "required",
    });
    expect(res.choices[0]?.message.content ?? "").toBe("");
    expect(res.choices[0]?.message.tool_calls?.[0]).toMatchObject({
      function: { arguments: '{"city":"Rome"}' },
    });
  });

  it("forced tool_choice: only that tool is offered to the model", async () => {
    const n = e2e.provider.requests.length;
    const res = await client.responses.create({
      model: "e2e-model",
      input: "[forced] time please",
      tools: [
        { type: "function", name: "get_weather", parameters: weatherSchema, strict: false },
        { type: "function", name: "get_time", parameters: timeTool.function.parameters, strict: false },
      ],
      tool_choice: { type: "function", name: "get_time" },
    });
    expect(toolsOf(since(n)[0]!).map((t) => t.name)).toEqual(["get_time"]);
    expect(
      res.output.filter((i) => i.type === "function_call").map((i) => i.type === "function_call" && i.name),
    ).toEqual(["get_time"]);
  });

  it("parallel_tool_calls:false: one call of three", async () => {
    const res = await client.chat.completions.create({
      model: "e2e-model",
      messages: [{ role: "user", content: "Weather [three]" }],
      tools: [weather],
      parallel_tool_calls: false,
    });
    expect(res.choices[0]?.message.tool_calls).toHaveLength(1);
  });

  it("strict: invalid arguments get the corrective turn; the client sees only the valid call", async () => {
    const stream = await client.chat.completions.create({
      model: "e2e-model",
      messages: [{ role: "user", content: "[strict] book me a seat" }],
      tools: [bookTool],
      stream: true,
    });
    const args: string[] = [];
    for await (const chunk of stream)
      for (const c of chunk.choices[0]?.delta.tool_calls ?? []) args.push(c.function?.arguments ?? "");
    expect(args.join("")).toBe('{"seat":"2B"}');
  });

  it("unknown tool: codex refuses it itself and the model answers in text", async () => {
    const res = await client.chat.completions.create({
      model: "e2e-model",
      messages: [{ role: "user", content: "[unknown] launch" }],
      tools: [weather],
    });
    expect(res.choices[0]?.message.tool_calls ?? []).toEqual([]);
    expect(res.choices[0]?.message.content).toBe("The weather: unsupported call: launch_rockets");
  });

  it("stop-after-tools: text after the calls is not forwarded", async () => {
    const res = await client.chat.completions.create({
      model: "e2e-model",
      messages: [{ role: "user", content: "[after] weather" }],
      tools: [weather],
    });
    expect(res.choices[0]?.message.tool_calls).toHaveLength(1);
    expect(res.choices[0]?.message.content ?? "").toBe("");
  });

  it("reasoning summaries stream before the call; usage is reported", async () => {
    const events: string[] = [];
    let usage: number | undefined;
    const stream = client.responses.stream({
      model: "e2e-model",
      input: "[reasoning] think first",
      tools: [{ type: "function", name: "get_weather", parameters: weatherSchema, strict: false }],
      reasoning: { effort: "low", summary: "auto" },
    });
    for await (const e of stream) {
      if (e.type === "response.reasoning_summary_text.delta") events.push("reasoning");
      if (e.type === "response.output_item.added" && e.item.type === "function_call") events.push("call");
      if (e.type === "response.completed") usage = e.response.usage?.total_tokens;
    }
    expect(events.indexOf("reasoning")).toBeGreaterThanOrEqual(0);
    expect(events.indexOf("reasoning")).toBeLessThan(events.indexOf("call"));
    expect(usage).toBeGreaterThan(0);
  });

  it("text.format json_schema and images in history reach the model in native mode", async () => {
    const n = e2e.provider.requests.length;
    const res = await client.responses.create({
      model: "e2e-model",
      tools: [{ type: "function", name: "get_weather", parameters: weatherSchema, strict: false }],
      text: { format: { type: "json_schema", name: "city", schema: weatherSchema, strict: true } },
      input: [
        {
          role: "user",
          content: [
            { type: "input_image", image_url: PNG, detail: "high" },
            { type: "input_text", text: "this one" },
          ],
        },
        { role: "assistant", content: "A pixel." },
        { role: "user", content: "[format] which city?" },
      ],
    });
    expect(JSON.parse(res.output_text)).toEqual({ city: "Paris" });
    const upstream = since(n)[0]!;
    expect((upstream.body.text as { format?: { type?: string } })?.format?.type).toBe("json_schema");
    expect(JSON.stringify(upstream.body.input)).toContain(PNG);
  });
});
