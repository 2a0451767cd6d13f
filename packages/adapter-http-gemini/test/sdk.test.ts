import { type Content, FunctionCallingConfigMode, GoogleGenAI } from "@google/genai";
import type { BackendRequest } from "@proxy/core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startGateway, type TestGateway, toolBlock, WEATHER_DECLARATION } from "./support/gateway.js";

const TIME_DECLARATION = {
  name: "get_time",
  description: "Get time",
  parametersJsonSchema: {
    type: "object",
    properties: { tz: { type: "string" } },
    required: ["tz"],
    additionalProperties: false,
  },
};

/** The scripted model: answers from a tool result it is shown, else calls the tool the prompt names. */
const script = (request: BackendRequest) => {
  const seen = JSON.stringify(request.history) + JSON.stringify(request.input);
  if (seen.includes("Sunny")) return { chunks: ["It is sunny", " in Paris."] };
  if (seen.includes("structured please")) return { chunks: ['{"city":', '"Paris","temp":21}'] };
  if (seen.includes("what time")) return { chunks: [toolBlock("get_time", { tz: "Europe/Paris" })] };
  if (seen.includes("weather"))
    return { chunks: ["Let me check. ", toolBlock("get_weather", { city: "Paris" })] };
  return { chunks: ["Hello", " from", " the gateway."] };
};

describe("@google/genai 3.1 against the Gemini surface (scripted backend)", () => {
  let gw: TestGateway;
  let ai: GoogleGenAI;
  let beta: GoogleGenAI;
  beforeAll(async () => {
    gw = await startGateway(script);
    ai = new GoogleGenAI({ apiKey: "test", httpOptions: { baseUrl: gw.url } });
    beta = new GoogleGenAI({ apiKey: "test", httpOptions: { baseUrl: gw.url, apiVersion: "v1beta" } });
  });
  afterAll(() => gw.close());

  it("generateContent: functionCall part with id, object args, finishReason STOP", async () => {
    const res = await ai.models.generateContent({
      model: "gemini-2.5-flash",
      contents: "weather in Paris?",
      config: { tools: [{ functionDeclarations: [WEATHER_DECLARATION as never] }] },
    });
    expect(res.functionCalls).toEqual([
      { id: expect.stringMatching(/^call_/), name: "get_weather", args: { city: "Paris" } },
    ]);
    expect(res.text).toBe("Let me check. ");
    expect(res.candidates?.[0]?.finishReason).toBe("STOP");
    expect(res.candidates?.[0]?.content?.parts?.[1]?.thoughtSignature).toEqual(expect.any(String));
    expect(res.modelVersion).toBe("gemini-2.5-flash");
    expect(res.responseId).toEqual(expect.any(String));
    expect(res.usageMetadata).toEqual({ promptTokenCount: 10, candidatesTokenCount: 5, totalTokenCount: 15 });
  });

  it("generateContentStream (v1beta): text then one whole functionCall, last chunk carries STOP", async () => {
    const chunks = [];
    for await (const chunk of await beta.models.generateContentStream({
      model: "gemini-2.5-flash",
      contents: "weather in Paris?",
      config: { tools: [{ functionDeclarations: [WEATHER_DECLARATION as never, TIME_DECLARATION] }] },
    }))
      chunks.push(chunk);
    expect(chunks.map((c) => c.text ?? "").join("")).toBe("Let me check. ");
    expect(chunks.flatMap((c) => c.functionCalls ?? [])).toEqual([
      { id: expect.stringMatching(/^call_/), name: "get_weather", args: { city: "Paris" } },
    ]);
    expect(chunks.at(-1)?.candidates?.[0]?.finishReason).toBe("STOP");
    expect(chunks.at(-1)?.usageMetadata?.totalTokenCount).toBe(15);
  });

  it("a tool round trip: the functionResponse (matched by id) reaches the backend, the answer is text", async () => {
    const first = await ai.models.generateContent({
      model: "gemini-2.5-flash",
      contents: "weather in Paris?",
      config: { tools: [{ functionDeclarations: [WEATHER_DECLARATION as never] }] },
    });
    const call = first.functionCalls![0]!;
    const modelTurn = first.candidates![0]!.content!;
    const res = await ai.models.generateContent({
      model: "gemini-2.5-flash",
      contents: <Content[]>[
        { role: "user", parts: [{ text: "weather in Paris?" }] },
        modelTurn,
        {
          role: "user",
          parts: [{ functionResponse: { id: call.id, name: call.name, response: { output: "Sunny, 21C" } } }],
        },
      ],
      config: { tools: [{ functionDeclarations: [WEATHER_DECLARATION as never] }] },
    });
    expect(res.text).toBe("It is sunny in Paris.");
    expect(res.functionCalls).toBeUndefined();
    const seen = JSON.stringify(gw.backend.requests.at(-1));
    expect(seen).toContain("Sunny, 21C");
    expect(seen).toContain(call.id);
    // The signature the client echoed is never forwarded.
    expect(seen).not.toContain(modelTurn.parts![1]!.thoughtSignature!);
  });

  it("ANY + one allowedFunctionName forces that function (only it is offered)", async () => {
    const res = await ai.models.generateContent({
      model: "gemini-2.5-flash",
      contents: "what time is it in Paris?",
      config: {
        tools: [{ functionDeclarations: [WEATHER_DECLARATION as never, TIME_DECLARATION] }],
        toolConfig: {
          functionCallingConfig: { mode: FunctionCallingConfigMode.ANY, allowedFunctionNames: ["get_time"] },
        },
      },
    });
    expect(res.functionCalls?.map((c) => [c.name, c.args])).toEqual([["get_time", { tz: "Europe/Paris" }]]);
    const instructions = gw.backend.requests.at(-1)!.instructions;
    expect(instructions).toContain("get_time");
    expect(instructions).not.toContain("get_weather");
  });

  it("structured output: responseMimeType + responseJsonSchema answers JSON and the schema reaches the backend", async () => {
    const schema = {
      type: "OBJECT",
      properties: { city: { type: "STRING" }, temp: { type: "INTEGER" } },
      required: ["city", "temp"],
    };
    const res = await ai.models.generateContent({
      model: "gemini-2.5-flash",
      contents: "structured please",
      config: { responseMimeType: "application/json", responseJsonSchema: schema },
    });
    expect(JSON.parse(res.text!)).toEqual({ city: "Paris", temp: 21 });
    expect(gw.backend.requests.at(-1)!.outputSchema).toEqual({
      type: "object",
      properties: { city: { type: "string" }, temp: { type: "integer" } },
      required: ["city", "temp"],
    });
  });

  it("countTokens, models.list and models.get", async () => {
    const counted = await ai.models.countTokens({
      model: "gemini-2.5-flash",
      contents: "Hello there, world",
    });
    expect(counted.totalTokens).toBe(4);
    const pager = await ai.models.list();
    const names = [];
    for await (const m of pager) names.push(m.name);
    expect(names).toEqual(["models/gemini-2.5-flash", "models/gpt-5.5"]);
    expect((await ai.models.get({ model: "gpt-5.5" })).description).toBe("GPT");
    await expect(ai.models.get({ model: "nope" })).rejects.toMatchObject({ status: 404 });
  });

  it("a backend failure is an ApiError with Google's error body", async () => {
    const failing = await startGateway([
      {
        chunks: [],
        startError: new (await import("@proxy/core")).GatewayError("overloaded", "Busy.", {
          retryAfterSeconds: 2,
        }),
      },
    ]);
    try {
      const client = new GoogleGenAI({ apiKey: "test", httpOptions: { baseUrl: failing.url } });
      const err = await client.models
        .generateContent({ model: "m", contents: "hi" })
        .catch((e: unknown) => e);
      expect(err).toMatchObject({ status: 429 });
      expect(JSON.parse((err as Error).message)).toEqual({
        error: {
          code: 429,
          message: "Busy.",
          status: "RESOURCE_EXHAUSTED",
          details: [{ "@type": "type.googleapis.com/google.rpc.RetryInfo", retryDelay: "2s" }],
        },
      });
    } finally {
      await failing.close();
    }
  });
});
