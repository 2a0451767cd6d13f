import { describe, expect, it } from "vitest";
import { decodeGeminiEndpoint, decodeGenerateContent } from "../src/index.js";

/** Golden request pairs: Gemini body in, canonical turn and tool policy out, one mapping rule each. */
const user = (text: string) => ({ role: "user", parts: [{ text }] });

describe("request mapping (golden pairs)", () => {
  it("contents, roles, systemInstruction (with role user), consecutive same-role contents", () => {
    const plan = decodeGenerateContent("m", {
      contents: [
        user("<session_context>x</session_context>"),
        user("hi"),
        { role: "model", parts: [{ text: "yo" }] },
      ],
      systemInstruction: { role: "user", parts: [{ text: "be brief" }, { text: "and kind" }] },
      generationConfig: {},
    });
    expect(plan.request).toEqual({
      model: "m",
      instructions: "be brief\nand kind",
      items: [
        {
          type: "message",
          role: "user",
          content: [{ type: "text", text: "<session_context>x</session_context>" }],
        },
        { type: "message", role: "user", content: [{ type: "text", text: "hi" }] },
        { type: "message", role: "assistant", content: [{ type: "text", text: "yo" }] },
      ],
      reasoningEffort: undefined,
      outputSchema: undefined,
      jsonObject: undefined,
      maxOutputTokens: undefined,
    });
    expect(plan.tools).toEqual({ tools: [], choice: { type: "auto" }, parallel: true });
  });

  it("functionCall / functionResponse with echoed ids; signatures (placeholder included) dropped; thoughts kept as reasoning", () => {
    const plan = decodeGenerateContent("m", {
      contents: [
        user("run it"),
        {
          role: "model",
          parts: [
            { text: "planning", thought: true },
            {
              functionCall: { id: "run_1", name: "sh", args: { command: "ls" } },
              thoughtSignature: "skip_thought_signature_validator",
            },
            { functionCall: { name: "sh", args: { command: "pwd" } } },
          ],
        },
        {
          role: "user",
          parts: [
            { functionResponse: { id: "run_1", name: "sh", response: { output: "a.txt" } } },
            { functionResponse: { name: "sh", response: { error: "denied" } } },
          ],
        },
        { role: "function", parts: [{ functionResponse: { name: "other", response: { temp: 21 } } }] },
      ],
    });
    expect(plan.request.items.slice(1)).toEqual([
      { type: "reasoning", text: "planning" },
      { type: "tool-call", callId: "run_1", name: "sh", arguments: '{"command":"ls"}' },
      { type: "tool-call", callId: "call_sh_1_2", name: "sh", arguments: '{"command":"pwd"}' },
      { type: "tool-result", callId: "run_1", name: "sh", output: "a.txt" },
      { type: "tool-result", callId: "call_sh_1_2", name: "sh", output: "Error: denied" },
      { type: "tool-result", callId: "call_other_3_0", name: "other", output: '{"temp":21}' },
    ]);
    expect(JSON.stringify(plan)).not.toContain("skip_thought_signature_validator");
  });

  it("inlineData images become data: URLs, fileData http(s) URIs stay URLs", () => {
    const plan = decodeGenerateContent("m", {
      contents: [
        {
          role: "user",
          parts: [
            { inlineData: { mimeType: "image/png", data: "iVBORw0KGgo=" } },
            { fileData: { mimeType: "image/jpeg", fileUri: "https://example.com/cat.jpg" } },
          ],
        },
      ],
    });
    expect(plan.request.items).toEqual([
      {
        type: "message",
        role: "user",
        content: [
          { type: "image", url: "data:image/png;base64,iVBORw0KGgo=" },
          {
            type: "image",
            url: "https://example.com/cat.jpg",
            path: "contents[0].parts[1].fileData.fileUri",
          },
        ],
      },
    ]);
  });

  it("generationConfig: maxOutputTokens, stopSequences, thinkingLevel / thinkingBudget, includeThoughts", () => {
    const level = decodeGenerateContent("m", {
      contents: [user("x")],
      generationConfig: {
        temperature: 1,
        topP: 0.95,
        topK: 64,
        maxOutputTokens: 100,
        stopSequences: ["END"],
        thinkingConfig: { includeThoughts: true, thinkingLevel: "HIGH" },
      },
    });
    expect(level.request.maxOutputTokens).toBe(100);
    expect(level.request.reasoningEffort).toBe("high");
    expect(level.request.stopSequences).toEqual(["END"]);
    expect(level.includeThoughts).toBe(true);
    const budget = (thinkingBudget: number) =>
      decodeGenerateContent("m", {
        contents: [user("x")],
        generationConfig: { thinkingConfig: { thinkingBudget } },
      }).request.reasoningEffort;
    expect([-1, 0, 1024, 8192, 24_576].map(budget)).toEqual([undefined, "minimal", "low", "medium", "high"]);
  });

  it("structured output: responseSchema (OpenAPI) and responseJsonSchema (upper-case types) → JSON Schema; JSON without schema", () => {
    const openapi = decodeGenerateContent("m", {
      contents: [user("x")],
      generationConfig: {
        responseMimeType: "application/json",
        responseSchema: {
          type: "OBJECT",
          properties: {
            complexity_reasoning: { type: "STRING", nullable: true },
            complexity_score: { type: "INTEGER", minimum: 1, maximum: 100, format: "int32" },
            tags: {
              type: "ARRAY",
              items: { type: "STRING", enum: ["a", "b"] },
              minItems: "1",
              maxItems: "3",
            },
          },
          required: ["complexity_score"],
          propertyOrdering: ["complexity_reasoning", "complexity_score"],
        },
      },
    });
    expect(openapi.request.outputSchema).toEqual({
      type: "object",
      properties: {
        complexity_reasoning: { type: ["string", "null"] },
        complexity_score: { type: "integer", minimum: 1, maximum: 100, format: "int32" },
        tags: { type: "array", items: { type: "string", enum: ["a", "b"] }, minItems: 1, maxItems: 3 },
      },
      required: ["complexity_score"],
    });
    const json = decodeGenerateContent("m", {
      contents: [user("x")],
      generationConfig: { responseMimeType: "application/json" },
    });
    expect(json.request).toMatchObject({ jsonObject: true, outputSchema: undefined });
  });

  it("functionDeclarations: parameters (OpenAPI subset) and parametersJsonSchema keep every constraint", () => {
    const plan = decodeGenerateContent("m", {
      contents: [user("x")],
      tools: [
        {
          functionDeclarations: [
            {
              name: "get_weather",
              description: "Weather",
              parameters: {
                type: "OBJECT",
                properties: {
                  location: { type: "STRING", description: "city", pattern: "^[A-Z]" },
                  unit: { type: "STRING", enum: ["c", "f"], nullable: true },
                  days: { type: "INTEGER", minimum: 1, maximum: 7, example: 3 },
                  where: { anyOf: [{ type: "STRING" }, { type: "NUMBER" }] },
                },
                required: ["location"],
              },
            },
            {
              name: "get_time",
              parametersJsonSchema: {
                type: "object",
                properties: { tz: { type: ["string", "null"] } },
                required: ["tz"],
                additionalProperties: false,
              },
            },
            { name: "no_args" },
          ],
        },
        { googleSearch: {} },
      ],
    });
    expect(plan.tools.tools).toEqual([
      {
        name: "get_weather",
        description: "Weather",
        strict: false,
        parameters: {
          type: "object",
          properties: {
            location: { type: "string", description: "city", pattern: "^[A-Z]" },
            unit: { type: ["string", "null"], enum: ["c", "f", null] },
            days: { type: "integer", minimum: 1, maximum: 7, examples: [3] },
            where: { anyOf: [{ type: "string" }, { type: "number" }] },
          },
          required: ["location"],
        },
      },
      {
        name: "get_time",
        description: undefined,
        strict: false,
        parameters: {
          type: "object",
          properties: { tz: { type: ["string", "null"] } },
          required: ["tz"],
          additionalProperties: false,
        },
      },
      { name: "no_args", description: undefined, strict: false, parameters: undefined },
    ]);
  });

  it("functionCallingConfig: AUTO, NONE, ANY, ANY + one name (forced), ANY + several (required among them), VALIDATED (strict)", () => {
    const tools = [{ functionDeclarations: [{ name: "a" }, { name: "b" }, { name: "c" }] }];
    const policy = (functionCallingConfig: object) =>
      decodeGenerateContent("m", { contents: [user("x")], tools, toolConfig: { functionCallingConfig } })
        .tools;
    const names = (p: ReturnType<typeof policy>) => p.tools.map((t) => t.name);
    expect(policy({ mode: "AUTO" }).choice).toEqual({ type: "auto" });
    expect(policy({ mode: "NONE" }).choice).toEqual({ type: "none" });
    expect(policy({ mode: "ANY" }).choice).toEqual({ type: "required" });
    const forced = policy({ mode: "ANY", allowedFunctionNames: ["b"] });
    expect([forced.choice, names(forced)]).toEqual([{ type: "tool", name: "b" }, ["b"]]);
    const among = policy({ mode: "ANY", allowedFunctionNames: ["a", "c"] });
    expect([among.choice, names(among)]).toEqual([{ type: "required" }, ["a", "c"]]);
    const validated = policy({ mode: "VALIDATED" });
    expect([validated.choice, validated.tools.every((t) => t.strict)]).toEqual([{ type: "auto" }, true]);
  });

  it("POST /v1/gemini body: input as a string or contents, model in the body, stream flag", () => {
    const plan = decodeGeminiEndpoint({
      model: "gemini-3-flash",
      input: "What is the weather in Tokyo?",
      tools: [
        {
          functionDeclarations: [
            {
              name: "get_weather",
              parameters: { type: "OBJECT", properties: { city: { type: "STRING" } }, required: ["city"] },
            },
          ],
        },
      ],
      conversation: "gemini-tool-test",
      stream: false,
    });
    expect(plan.request.model).toBe("gemini-3-flash");
    expect(plan.request.items).toEqual([
      { type: "message", role: "user", content: [{ type: "text", text: "What is the weather in Tokyo?" }] },
    ]);
    expect(plan.tools.tools[0]?.parameters).toEqual({
      type: "object",
      properties: { city: { type: "string" } },
      required: ["city"],
    });
    expect(plan.stream).toBe(false);
  });
});
