import { GatewayError } from "@proxy/core";
import { describe, expect, it } from "vitest";
import { post, sseData, startGateway, toolBlock } from "./support/gateway.js";

const SEED_BODY = {
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
  // The seed's body also names a `conversation`, which needs a store: covered in the gateway's tests.
  stream: false,
};

describe("Gemini surface behaviour", () => {
  it("POST /v1/gemini (the seed's curl body) returns a functionCall part, and SSE chunks with stream:true", async () => {
    const gw = await startGateway(() => ({ chunks: [toolBlock("get_weather", { city: "Tokyo" })] }));
    try {
      const res = await post(gw, "/v1/gemini", SEED_BODY);
      expect(res.status).toBe(200);
      const body = JSON.parse(res.text);
      expect(body.candidates[0].content.parts[0].functionCall).toEqual({
        id: expect.stringMatching(/^call_/),
        name: "get_weather",
        args: { city: "Tokyo" },
      });
      expect(body.candidates[0].finishReason).toBe("STOP");
      expect(body.modelVersion).toBe("gemini-3-flash");
      const streamed = sseData((await post(gw, "/v1/gemini", { ...SEED_BODY, stream: true })).text) as Array<{
        candidates: Array<{ content: { parts: Array<{ functionCall?: unknown }> } }>;
      }>;
      expect(
        streamed.flatMap((c) => c.candidates[0]!.content.parts).find((p) => p.functionCall),
      ).toBeDefined();
    } finally {
      await gw.close();
    }
  });

  it("a required call still missing after the corrective turn is a 200 with MALFORMED_FUNCTION_CALL", async () => {
    const gw = await startGateway(() => ({ chunks: ["I will not call anything."] }));
    try {
      const body = {
        contents: [{ role: "user", parts: [{ text: "hi" }] }],
        tools: [{ functionDeclarations: [{ name: "f" }] }],
        toolConfig: { functionCallingConfig: { mode: "ANY" } },
      };
      const res = await post(gw, "/v1beta/models/m:generateContent", body);
      expect(res.status).toBe(200);
      expect(JSON.parse(res.text).candidates[0].finishReason).toBe("MALFORMED_FUNCTION_CALL");
      const streamed = sseData((await post(gw, "/v1beta/models/m:streamGenerateContent?alt=sse", body)).text);
      expect(streamed.at(-1)).toMatchObject({ candidates: [{ finishReason: "MALFORMED_FUNCTION_CALL" }] });
      expect(gw.summaries.at(-1)?.error?.kind).toBe("tool_choice_not_satisfied");
    } finally {
      await gw.close();
    }
  });

  it("no keep-alive bytes on a silent Gemini stream, only data: lines", async () => {
    const gw = await startGateway([{ chunks: ["slow", " answer"], delayMs: 150 }], { keepAliveMs: 20 });
    try {
      const res = await post(gw, "/v1beta/models/m:streamGenerateContent?alt=sse", {
        contents: [{ role: "user", parts: [{ text: "hi" }] }],
      });
      expect(res.text.split("\n").filter((l) => l !== "" && !l.startsWith("data: "))).toEqual([]);
      expect(sseData(res.text)).toHaveLength(3);
    } finally {
      await gw.close();
    }
  });

  it("MAX_TOKENS, and an error before the first byte is an HTTP error in Google's shape", async () => {
    const gw = await startGateway([
      { chunks: ["cut"], finish: { reason: "length", raw: "max_output_tokens" } },
      { chunks: [], startError: new GatewayError("backend_unavailable", "Codex is restarting.") },
    ]);
    try {
      const body = { contents: [{ role: "user", parts: [{ text: "hi" }] }] };
      const cut = await post(gw, "/v1/models/m:generateContent", body);
      expect(JSON.parse(cut.text).candidates[0].finishReason).toBe("MAX_TOKENS");
      const down = await post(gw, "/v1/models/m:streamGenerateContent?alt=sse", body);
      expect(down.status).toBe(503);
      expect(JSON.parse(down.text)).toEqual({
        error: { code: 503, message: "Codex is restarting.", status: "UNAVAILABLE" },
      });
    } finally {
      await gw.close();
    }
  });

  it("native tool mode: the backend's own calls come out as functionCall parts, results go back as native items", async () => {
    const gw = await startGateway(
      (request) =>
        request.history.some((m) => m.role === "tool")
          ? { chunks: ["Sunny."] }
          : {
              chunks: [],
              toolCalls: [{ callId: "fc_native_1", name: "get_weather", arguments: '{"city":"Oslo"}' }],
            },
      { nativeTools: true },
    );
    try {
      const tools = [
        { functionDeclarations: [{ name: "get_weather", parametersJsonSchema: { type: "object" } }] },
      ];
      const first = JSON.parse(
        (
          await post(gw, "/v1beta/models/m:generateContent", {
            contents: [{ role: "user", parts: [{ text: "w?" }] }],
            tools,
          })
        ).text,
      );
      const part = first.candidates[0].content.parts[0];
      expect(part.functionCall).toEqual({ id: "fc_native_1", name: "get_weather", args: { city: "Oslo" } });
      expect(gw.backend.requests[0]?.tools?.tools.map((t) => t.name)).toEqual(["get_weather"]);
      const second = JSON.parse(
        (
          await post(gw, "/v1beta/models/m:generateContent", {
            tools,
            contents: [
              { role: "user", parts: [{ text: "w?" }] },
              { role: "model", parts: [part] },
              {
                role: "user",
                parts: [
                  {
                    functionResponse: { id: "fc_native_1", name: "get_weather", response: { output: "sun" } },
                  },
                ],
              },
            ],
          })
        ).text,
      );
      expect(second.candidates[0].content.parts).toEqual([{ text: "Sunny." }]);
      expect(gw.backend.requests[1]?.history.at(-1)).toEqual({
        role: "tool",
        callId: "fc_native_1",
        output: "sun",
      });
    } finally {
      await gw.close();
    }
  });

  it("parallel calls are several functionCall parts of one candidate; signatures are per response", async () => {
    const calls = toolBlock("get_weather", { city: "Oslo" }) + toolBlock("get_weather", { city: "Rome" });
    const gw = await startGateway(() => ({ chunks: [calls] }));
    try {
      const body = {
        contents: [{ role: "user", parts: [{ text: "two cities" }] }],
        tools: [
          { functionDeclarations: [{ name: "get_weather", parametersJsonSchema: { type: "object" } }] },
        ],
      };
      const answer = async () =>
        JSON.parse((await post(gw, "/v1beta/models/m:generateContent", body)).text).candidates[0].content
          .parts as Array<{
          functionCall: { id: string; args: unknown };
          thoughtSignature: string;
        }>;
      const first = await answer();
      expect(first.map((p) => p.functionCall.args)).toEqual([{ city: "Oslo" }, { city: "Rome" }]);
      expect(new Set(first.map((p) => p.functionCall.id)).size).toBe(2);
      const second = await answer();
      const signatures = [...first, ...second].map((p) => p.thoughtSignature);
      expect(new Set(signatures).size).toBe(4);
    } finally {
      await gw.close();
    }
  });
});
