import { type Content, FunctionCallingConfigMode, GoogleGenAI } from "@google/genai";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type RecordedRequest, startE2E } from "./e2e-gateway.js";
import { itemsOf, nativeModel, toolsOf } from "./native-support.js";

const WEATHER = {
  name: "get_weather",
  description: "Get the weather for a city",
  parameters: {
    type: "OBJECT",
    properties: { city: { type: "STRING", description: "city" }, unit: { type: "STRING", nullable: true } },
    required: ["city"],
  },
};
const TIME = {
  name: "get_time",
  description: "Get the time",
  parametersJsonSchema: { type: "object", properties: { tz: { type: "string" } }, required: ["tz"] },
};

describe("native tool mode end to end: @google/genai → gateway → real codex (dynamic tools) → scripted model", {
  timeout: 60_000,
}, () => {
  let e2e: Awaited<ReturnType<typeof startE2E>>;
  let ai: GoogleGenAI;
  const last = (): RecordedRequest => e2e.provider.requests.at(-1) as RecordedRequest;
  beforeAll(async () => {
    e2e = await startE2E(nativeModel, { PROXY_TOOL_MODE: "auto" });
    ai = new GoogleGenAI({ apiKey: "unused", httpOptions: { baseUrl: e2e.url, apiVersion: "v1beta" } });
  }, 60_000);
  afterAll(() => e2e?.close());

  it("the declarations reach the model natively as JSON Schema; its call comes back with its own id", async () => {
    const res = await ai.models.generateContent({
      model: "e2e-model",
      contents: "What's the weather in Paris?",
      config: { tools: [{ functionDeclarations: [WEATHER as never] }] },
    });
    const upstream = last();
    expect(toolsOf(upstream)).toEqual([
      {
        type: "function",
        name: "get_weather",
        description: "Get the weather for a city",
        strict: false,
        parameters: {
          type: "object",
          properties: { city: { type: "string", description: "city" }, unit: { type: ["string", "null"] } },
          required: ["city"],
        },
      },
    ]);
    expect(res.text).toBe("Let me check. ");
    expect(res.functionCalls).toEqual([
      { id: `call_${upstream.index}_0`, name: "get_weather", args: { city: "Paris" } },
    ]);
    expect(res.candidates?.[0]?.finishReason).toBe("STOP");
  });

  it("stream, then the functionResponse goes back as a native function_call_output with the same id", async () => {
    const config = { tools: [{ functionDeclarations: [WEATHER as never] }] };
    const chunks = [];
    for await (const c of await ai.models.generateContentStream({
      model: "e2e-model",
      contents: "weather?",
      config,
    }))
      chunks.push(c);
    const call = chunks.flatMap((c) => c.functionCalls ?? [])[0]!;
    expect(chunks.at(-1)?.candidates?.[0]?.finishReason).toBe("STOP");
    const res = await ai.models.generateContent({
      model: "e2e-model",
      config,
      contents: <Content[]>[
        { role: "user", parts: [{ text: "weather?" }] },
        { role: "model", parts: chunks.flatMap((c) => c.candidates?.[0]?.content?.parts ?? []) },
        {
          role: "user",
          parts: [{ functionResponse: { id: call.id, name: call.name, response: { output: "Sunny" } } }],
        },
      ],
    });
    expect(res.text).toBe("The weather: Sunny");
    const sent = itemsOf(last()).filter((i) => i.type?.startsWith("function_call"));
    expect(sent.map((i) => [i.type, i.call_id])).toEqual([
      ["function_call", call.id],
      ["function_call_output", call.id],
    ]);
    // The signature the SDK echoed back never reaches the backend.
    expect(JSON.stringify(last().body)).not.toContain("thoughtSignature");
  });

  it("ANY + one allowedFunctionName: only that function is offered and called", async () => {
    const res = await ai.models.generateContent({
      model: "e2e-model",
      contents: "What time is it? [forced]",
      config: {
        tools: [{ functionDeclarations: [WEATHER as never, TIME] }],
        toolConfig: {
          functionCallingConfig: { mode: FunctionCallingConfigMode.ANY, allowedFunctionNames: ["get_time"] },
        },
      },
    });
    expect(toolsOf(last()).map((t) => t.name)).toEqual(["get_time"]);
    expect(res.functionCalls?.map((c) => [c.name, c.args])).toEqual([["get_time", { tz: "UTC" }]]);
  });

  it("ANY still unmet after the corrective turn: 200 with MALFORMED_FUNCTION_CALL", async () => {
    const res = await ai.models.generateContent({
      model: "e2e-model",
      contents: "Just chat [required] but not",
      config: {
        tools: [{ functionDeclarations: [TIME] }],
        toolConfig: { functionCallingConfig: { mode: FunctionCallingConfigMode.ANY } },
      },
    });
    expect(res.candidates?.[0]?.finishReason).toBe("MALFORMED_FUNCTION_CALL");
  });
});
