import { execFile } from "node:child_process";
import { promisify } from "node:util";
import { type Content, FunctionCallingConfigMode, GoogleGenAI } from "@google/genai";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { lastUserText, type RecordedRequest, startE2E, toolCallText, transcriptOf } from "./e2e-gateway.js";

const KEY = "gemini-e2e-key";

const WEATHER = {
  name: "get_weather",
  description: "Get the weather for a city",
  parameters: {
    type: "OBJECT",
    properties: { city: { type: "STRING", description: "city" }, unit: { type: "STRING", enum: ["c", "f"] } },
    required: ["city"],
  },
};
const TIME = {
  name: "get_time",
  description: "Get the time in a timezone",
  parametersJsonSchema: { type: "object", properties: { tz: { type: "string" } }, required: ["tz"] },
};

/** The scripted model behind the real codex: calls a tool, then answers from the result it is shown. */
const model = (request: RecordedRequest) => {
  const input = lastUserText(request);
  const result = /\[function_call_output call_id="[^"]*" output=("(?:[^"\\]|\\.)*")\]/.exec(input);
  if (result) return { chunks: ["The weather: ", JSON.parse(result[1] ?? '""') as string] };
  if (/structured/i.test(input)) return { chunks: ['{"city":"Paris",', '"temp":21}'] };
  if (/time/i.test(input)) return { chunks: [toolCallText("get_time", { tz: "Europe/Paris" })] };
  if (/weather/i.test(input))
    return { chunks: ["Let me check. ", toolCallText("get_weather", { city: "Paris" })] };
  return { text: "Hello from the scripted model." };
};

describe("end to end: @google/genai → gateway (Gemini surface) → real codex app-server → scripted model", {
  timeout: 60_000,
}, () => {
  let e2e: Awaited<ReturnType<typeof startE2E>>;
  let ai: GoogleGenAI;
  beforeAll(async () => {
    // The seed's clients send free-form `conversation` keys: a store that creates them on first use.
    e2e = await startE2E(model, {
      PROXY_API_KEYS: KEY,
      PROXY_STORE: "memory",
      PROXY_CONVERSATIONS_AUTOCREATE: "true",
    });
    ai = new GoogleGenAI({ apiKey: KEY, httpOptions: { baseUrl: e2e.url } });
  }, 60_000);
  afterAll(() => e2e?.close());

  it("generateContent with function declarations: a functionCall part, and codex offered the model no tools", async () => {
    const res = await ai.models.generateContent({
      model: "e2e-model",
      contents: "What's the weather in Paris?",
      config: { tools: [{ functionDeclarations: [WEATHER as never, TIME] }] },
    });
    expect(res.text).toBe("Let me check. ");
    expect(res.functionCalls).toEqual([
      { id: expect.stringMatching(/^call_/), name: "get_weather", args: { city: "Paris" } },
    ]);
    expect(res.candidates?.[0]?.finishReason).toBe("STOP");
    expect(res.usageMetadata?.totalTokenCount).toBeGreaterThan(0);
    const upstream = e2e.provider.requests.at(-1)!;
    expect(upstream.body.tools ?? []).toEqual([]);
    expect(transcriptOf(upstream)).toContain("get_weather");
  });

  it("generateContentStream (v1beta) with function declarations, then the functionResponse round trip", async () => {
    const beta = new GoogleGenAI({ apiKey: KEY, httpOptions: { baseUrl: e2e.url, apiVersion: "v1beta" } });
    const config = { tools: [{ functionDeclarations: [WEATHER as never] }] };
    const chunks = [];
    for await (const c of await beta.models.generateContentStream({
      model: "e2e-model",
      contents: "weather in Paris?",
      config,
    }))
      chunks.push(c);
    const calls = chunks.flatMap((c) => c.functionCalls ?? []);
    expect(calls.map((c) => [c.name, c.args])).toEqual([["get_weather", { city: "Paris" }]]);
    expect(chunks.at(-1)?.candidates?.[0]?.finishReason).toBe("STOP");

    const modelParts = chunks.flatMap((c) => c.candidates?.[0]?.content?.parts ?? []);
    const res = await beta.models.generateContent({
      model: "e2e-model",
      config,
      contents: <Content[]>[
        { role: "user", parts: [{ text: "weather in Paris?" }] },
        { role: "model", parts: modelParts },
        {
          role: "user",
          parts: [
            { functionResponse: { id: calls[0]!.id, name: "get_weather", response: { output: "Sunny" } } },
          ],
        },
      ],
    });
    expect(res.text).toBe("The weather: Sunny");
    expect(lastUserText(e2e.provider.requests.at(-1)!)).toContain(`call_id="${calls[0]!.id}" output="Sunny`);
  });

  it("ANY + allowedFunctionNames forces the one function", async () => {
    const res = await ai.models.generateContent({
      model: "e2e-model",
      contents: "what time is it in Paris?",
      config: {
        tools: [{ functionDeclarations: [WEATHER as never, TIME] }],
        toolConfig: {
          functionCallingConfig: { mode: FunctionCallingConfigMode.ANY, allowedFunctionNames: ["get_time"] },
        },
      },
    });
    expect(res.functionCalls?.map((c) => [c.name, c.args])).toEqual([["get_time", { tz: "Europe/Paris" }]]);
  });

  it("structured output: responseMimeType + responseSchema answers with the JSON", async () => {
    const res = await ai.models.generateContent({
      model: "e2e-model",
      contents: "structured weather report",
      config: {
        responseMimeType: "application/json",
        responseSchema: {
          type: "OBJECT" as never,
          properties: { city: { type: "STRING" as never }, temp: { type: "INTEGER" as never } },
        },
      },
    });
    expect(JSON.parse(res.text ?? "")).toEqual({ city: "Paris", temp: 21 });
  });

  it("Google key auth: x-goog-api-key and ?key= pass, a wrong key is Google's 400 API_KEY_INVALID", async () => {
    const body = JSON.stringify({ contents: [{ role: "user", parts: [{ text: "hi" }] }] });
    const url = `${e2e.url}/v1beta/models/e2e-model:generateContent`;
    const headers = { "content-type": "application/json" };
    expect((await fetch(`${url}?key=${KEY}`, { method: "POST", headers, body })).status).toBe(200);
    const bad = await fetch(url, {
      method: "POST",
      headers: { ...headers, "x-goog-api-key": "wrong" },
      body,
    });
    expect(bad.status).toBe(400);
    expect(await bad.json()).toEqual({
      error: {
        code: 400,
        message: "API key not valid. Please pass a valid API key.",
        status: "INVALID_ARGUMENT",
        details: [
          {
            "@type": "type.googleapis.com/google.rpc.ErrorInfo",
            reason: "API_KEY_INVALID",
            domain: "googleapis.com",
            metadata: { service: "generativelanguage.googleapis.com" },
          },
        ],
      },
    });
    // A browser's "simple" cross-site POST (text/plain) is refused here as on the OpenAI paths.
    const plain = await fetch(`${url}?key=${KEY}`, {
      method: "POST",
      headers: { "content-type": "text/plain" },
      body,
    });
    expect(plain.status).toBe(415);
    const v1 = await fetch(`${e2e.url}/v1/models/e2e-model:generateContent`, {
      method: "POST",
      headers,
      body,
    });
    expect([v1.status, ((await v1.json()) as { error: { status: string } }).error.status]).toEqual([
      400,
      "INVALID_ARGUMENT",
    ]);
  });

  it("GET /v1/models: Google clients get Google's listing, OpenAI clients OpenAI's", async () => {
    const pager = await ai.models.list();
    const google = [];
    for await (const m of pager) google.push(m.name);
    expect(google.length).toBeGreaterThan(0);
    expect(google.every((n) => n?.startsWith("models/"))).toBe(true);
    const openai = await fetch(`${e2e.url}/v1/models`, { headers: { authorization: `Bearer ${KEY}` } });
    expect(((await openai.json()) as { object: string }).object).toBe("list");
    const one = await ai.models.get({ model: google[0]!.slice("models/".length) });
    expect(one.name).toBe(google[0]);
  });

  it("the seed's curl test: POST /v1/gemini with an OBJECT/STRING schema returns a functionCall", async () => {
    const { stdout } = await promisify(execFile)("curl", [
      "-s",
      `${e2e.url}/v1/gemini`,
      "-H",
      "Content-Type: application/json",
      "-H",
      `x-goog-api-key: ${KEY}`,
      "-d",
      JSON.stringify({
        model: "gemini-3-flash",
        input: "What is the weather in Tokyo?",
        tools: [
          {
            functionDeclarations: [
              {
                name: "get_weather",
                description: "Get weather",
                parameters: { type: "OBJECT", properties: { city: { type: "STRING" } }, required: ["city"] },
              },
            ],
          },
        ],
        conversation: "gemini-tool-test",
        stream: false,
      }),
    ]);
    const body = JSON.parse(stdout) as {
      candidates: Array<{ content: { parts: Array<{ functionCall?: unknown }> } }>;
    };
    expect(body.candidates[0]!.content.parts.find((p) => p.functionCall)).toMatchObject({
      functionCall: { name: "get_weather", args: { city: "Paris" } },
    });
  });

  it("a `conversation` key carries a tool round trip: the second request sends only the functionResponse", async () => {
    const post = async (body: object) => {
      const res = await fetch(`${e2e.url}/v1/gemini`, {
        method: "POST",
        headers: { "content-type": "application/json", "x-goog-api-key": KEY },
        body: JSON.stringify({ model: "gemini-3-flash", conversation: "e2e-weather-trip", ...body }),
      });
      expect(res.status).toBe(200);
      return (await res.json()) as {
        candidates: Array<{ content: { parts: Array<{ text?: string; functionCall?: { id: string } }> } }>;
      };
    };
    const first = await post({
      input: "What is the weather in Paris?",
      tools: [{ functionDeclarations: [WEATHER] }],
    });
    const call = first.candidates[0]!.content.parts.find((p) => p.functionCall)?.functionCall;
    expect(call).toMatchObject({ name: "get_weather", args: { city: "Paris" } });
    const second = await post({
      tools: [{ functionDeclarations: [WEATHER] }],
      contents: [
        {
          role: "user",
          parts: [
            { functionResponse: { id: call!.id, name: "get_weather", response: { output: "rainy, 12C" } } },
          ],
        },
      ],
    });
    expect(second.candidates[0]!.content.parts.map((p) => p.text ?? "").join("")).toBe(
      "The weather: rainy, 12C",
    );
    // What codex sent the model holds the whole history: the question, the call and its result.
    const upstream = transcriptOf(e2e.provider.requests.at(-1)!);
    expect(upstream).toContain("What is the weather in Paris?");
    expect(upstream).toContain(call!.id);
    expect(upstream).toContain("rainy, 12C");
  });
});
