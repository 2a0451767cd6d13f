import OpenAI from "openai";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { lastUserText, type RecordedRequest, startE2E, toolCallText, transcriptOf } from "./e2e-gateway.js";

/** The scripted model: JSON when asked for it, three calls when asked for cities, else plain text. */
const model = (request: RecordedRequest) => {
  const input = lastUserText(request);
  if (input.includes("cities"))
    return {
      chunks: ["Paris", "Rome", "Oslo"].map((city) => toolCallText("get_weather", { city })),
    };
  if (input.includes("json")) return { text: '{"city":"Paris","temp":21}' };
  return { text: "Plain answer.", reasoning: "Thinking it over." };
};

const parameters = { type: "object", properties: { city: { type: "string" } }, required: ["city"] };
const tools = [{ type: "function" as const, name: "get_weather", parameters, strict: false }];
const weatherSchema = {
  type: "object",
  properties: { city: { type: "string" }, temp: { type: "number" } },
  required: ["city", "temp"],
  additionalProperties: false,
};

describe("Responses and chat request fields at the wire (real codex app-server)", { timeout: 60_000 }, () => {
  let e2e: Awaited<ReturnType<typeof startE2E>>;
  let client: OpenAI;
  beforeAll(async () => {
    e2e = await startE2E(model);
    client = new OpenAI({ baseURL: `${e2e.url}/v1`, apiKey: "sk-e2e", maxRetries: 0 });
  }, 60_000);
  afterAll(() => e2e?.close());

  const upstreamFor = (text: string) =>
    [...e2e.provider.requests].reverse().find((r) => lastUserText(r).includes(text));

  it("max_tool_calls is enforced: later calls are dropped, streaming and not", async () => {
    const res = await client.responses.create({
      model: "m",
      input: "three cities",
      tools,
      max_tool_calls: 2,
    });
    const calls = res.output.filter((o) => o.type === "function_call");
    expect(calls.map((c) => c.type === "function_call" && JSON.parse(c.arguments).city)).toEqual([
      "Paris",
      "Rome",
    ]);
    expect(res.max_tool_calls).toBe(2);

    const stream = await client.responses.create({
      model: "m",
      input: "three cities, streamed",
      tools,
      max_tool_calls: 1,
      stream: true,
    });
    let done: OpenAI.Responses.Response | undefined;
    for await (const event of stream) if (event.type === "response.completed") done = event.response;
    expect(done?.output.filter((o) => o.type === "function_call")).toHaveLength(1);
  });

  it("reasoning.effort and reasoning.summary reach the backend", async () => {
    const res = await client.responses.create({
      model: "m",
      input: "think about effort",
      reasoning: { effort: "high", summary: "detailed" },
    });
    expect(res.status).toBe(completedStatus);
    const upstream = upstreamFor("think about effort");
    expect(upstream?.body.reasoning).toMatchObject({ effort: "high", summary: "detailed" });
  });

  it('include: ["reasoning.encrypted_content"] never fails; reasoning items still come back', async () => {
    const res = await client.responses.create({
      model: "m",
      input: "hello with include",
      include: ["reasoning.encrypted_content"],
      reasoning: { summary: "auto" },
    });
    expect(res.status).toBe("completed");
    expect(res.output_text).toBe("Plain answer.");
    const reasoning = res.output.find((o) => o.type === "reasoning");
    expect(reasoning?.type === "reasoning" && reasoning.summary[0]?.text).toBe("Thinking it over.");
  });

  it("text.format json_object is asked of the model and the JSON comes back", async () => {
    const res = await client.responses.create({
      model: "m",
      input: "weather as json object",
      text: { format: { type: "json_object" } },
    });
    expect(JSON.parse(res.output_text)).toEqual({ city: "Paris", temp: 21 });
    expect(transcriptOf(upstreamFor("weather as json object")!)).toContain("single valid JSON object");
  });

  it("chat response_format json_object and json_schema (the schema reaches the model provider)", async () => {
    const object = await client.chat.completions.create({
      model: "m",
      messages: [{ role: "user", content: "weather json please" }],
      response_format: { type: "json_object" },
    });
    expect(JSON.parse(object.choices[0]?.message.content ?? "")).toEqual({ city: "Paris", temp: 21 });
    expect(transcriptOf(upstreamFor("weather json please")!)).toContain("single valid JSON object");

    const schema = await client.chat.completions.create({
      model: "m",
      messages: [{ role: "user", content: "weather json by schema" }],
      response_format: {
        type: "json_schema",
        json_schema: { name: "weather", schema: weatherSchema, strict: true },
      },
    });
    expect(JSON.parse(schema.choices[0]?.message.content ?? "")).toEqual({ city: "Paris", temp: 21 });
    const format = (upstreamFor("weather json by schema")?.body.text as { format?: Record<string, unknown> })
      ?.format;
    expect(format).toMatchObject({ type: "json_schema", schema: weatherSchema });
  });

  it("truncation, metadata, user, safety_identifier, prompt_cache_key, service_tier, top_logprobs are accepted", async () => {
    const res = await client.responses.create({
      model: "m",
      input: "hello with extras",
      truncation: "auto",
      metadata: { team: "a" },
      user: "u-1",
      safety_identifier: "s-1",
      prompt_cache_key: "k-1",
      service_tier: "auto",
      top_logprobs: 2,
    });
    expect(res.status).toBe("completed");
    expect(res.output_text).toBe("Plain answer.");
    expect(res.metadata).toEqual({ team: "a" });
  });
});

const completedStatus = "completed";
