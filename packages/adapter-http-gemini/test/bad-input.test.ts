import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { post, startGateway, type TestGateway } from "./support/gateway.js";

const ok = { contents: [{ role: "user", parts: [{ text: "hi" }] }] };
const decl = (d: object) => ({ ...ok, tools: [{ functionDeclarations: [d] }] });

/** Every malformed field → a Google-shaped 400 whose BadRequest field names it; nothing reaches the backend. */
const TABLE: ReadonlyArray<[string, unknown, string]> = [
  ["not JSON", "{nope", ""],
  ["body not an object", [1], "body"],
  ["contents missing", {}, "contents"],
  ["contents empty", { contents: [] }, "contents"],
  ["content not an object", { contents: ["hi"] }, "contents[0]"],
  ["unknown role", { contents: [{ role: "assistant", parts: [{ text: "x" }] }] }, "contents[0].role"],
  ["parts missing", { contents: [{ role: "user" }] }, "contents[0].parts"],
  ["empty part", { contents: [{ role: "user", parts: [{}] }] }, "contents[0].parts[0]"],
  ["text not a string", { contents: [{ role: "user", parts: [{ text: 1 }] }] }, "contents[0].parts[0]"],
  [
    "non-image inlineData",
    { contents: [{ role: "user", parts: [{ inlineData: { mimeType: "application/pdf", data: "x" } }] }] },
    "contents[0].parts[0].inlineData.mimeType",
  ],
  [
    "fileData not http(s)",
    { contents: [{ role: "user", parts: [{ fileData: { fileUri: "gs://b/o", mimeType: "image/png" } }] }] },
    "contents[0].parts[0].fileData.fileUri",
  ],
  [
    "functionCall from the user",
    { contents: [{ role: "user", parts: [{ functionCall: { name: "f", args: {} } }] }] },
    "contents[0].parts[0].functionCall",
  ],
  [
    "functionCall args not an object",
    { contents: [{ role: "model", parts: [{ functionCall: { name: "f", args: "x" } }] }] },
    "contents[0].parts[0].functionCall.args",
  ],
  [
    "functionResponse response not an object",
    { contents: [{ role: "user", parts: [{ functionResponse: { name: "f", response: "x" } }] }] },
    "contents[0].parts[0].functionResponse.response",
  ],
  [
    "systemInstruction parts not a list",
    { ...ok, systemInstruction: { parts: "x" } },
    "systemInstruction.parts",
  ],
  ["bad tool name", decl({ name: "has space" }), "tools[0].functionDeclarations[0].name"],
  [
    "a schema that is false (no arguments satisfy it)",
    decl({ name: "never", parametersJsonSchema: false }),
    "tools[0].functionDeclarations[0].parametersJsonSchema",
  ],
  [
    "bad OpenAPI type",
    decl({ name: "f", parameters: { type: "OBJEKT" } }),
    "tools[0].functionDeclarations[0].parameters.type",
  ],
  [
    "bad nested type",
    decl({ name: "f", parameters: { type: "OBJECT", properties: { a: { type: "TEXT" } } } }),
    "tools[0].functionDeclarations[0].parameters.properties.a.type",
  ],
  [
    "both parameter dialects",
    decl({ name: "f", parameters: {}, parametersJsonSchema: {} }),
    "tools[0].functionDeclarations[0].parametersJsonSchema",
  ],
  [
    "duplicate declaration",
    { ...ok, tools: [{ functionDeclarations: [{ name: "f" }, { name: "f" }] }] },
    "tools[0].functionDeclarations[1].name",
  ],
  ["unknown tool kind", { ...ok, tools: [{ fooTool: {} }] }, "tools[0].fooTool"],
  [
    "unknown mode",
    { ...decl({ name: "f" }), toolConfig: { functionCallingConfig: { mode: "SOMETIMES" } } },
    "toolConfig.functionCallingConfig.mode",
  ],
  [
    "allowed name not declared",
    {
      ...decl({ name: "f" }),
      toolConfig: { functionCallingConfig: { mode: "ANY", allowedFunctionNames: ["g"] } },
    },
    "toolConfig.functionCallingConfig.allowedFunctionNames[0]",
  ],
  [
    "ANY without declarations",
    { ...ok, toolConfig: { functionCallingConfig: { mode: "ANY" } } },
    "toolConfig.functionCallingConfig.mode",
  ],
  [
    "maxOutputTokens not positive",
    { ...ok, generationConfig: { maxOutputTokens: 0 } },
    "generationConfig.maxOutputTokens",
  ],
  [
    "temperature not a number",
    { ...ok, generationConfig: { temperature: "hot" } },
    "generationConfig.temperature",
  ],
  ["candidateCount 2", { ...ok, generationConfig: { candidateCount: 2 } }, "generationConfig.candidateCount"],
  [
    "six stop sequences",
    { ...ok, generationConfig: { stopSequences: ["a", "b", "c", "d", "e", "f"] } },
    "generationConfig.stopSequences",
  ],
  [
    "schema without JSON mime",
    { ...ok, generationConfig: { responseSchema: { type: "STRING" } } },
    "generationConfig.responseMimeType",
  ],
  [
    "unknown thinkingLevel",
    { ...ok, generationConfig: { thinkingConfig: { thinkingLevel: "MAX" } } },
    "generationConfig.thinkingConfig.thinkingLevel",
  ],
  [
    "lone surrogate",
    `{"contents":[{"role":"user","parts":[{"text":"\\ud800"}]}]}`,
    "contents[0].parts[0].text",
  ],
];

describe("bad input: Google-shaped 400s naming the field", () => {
  let gw: TestGateway;
  beforeAll(async () => {
    gw = await startGateway([{ chunks: ["never"] }]);
  });
  afterAll(() => gw.close());

  it.each(TABLE)("%s", async (_, body, field) => {
    const res = await post(gw, "/v1beta/models/m:generateContent", body);
    expect(res.status).toBe(400);
    const error = (
      JSON.parse(res.text) as {
        error: { code: number; status: string; message: string; details?: unknown[] };
      }
    ).error;
    expect(error).toMatchObject({ code: 400, status: "INVALID_ARGUMENT", message: expect.any(String) });
    if (field === "") expect(error.details).toBeUndefined();
    else
      expect(error.details).toEqual([
        {
          "@type": "type.googleapis.com/google.rpc.BadRequest",
          fieldViolations: [{ field, description: error.message }],
        },
      ]);
    expect(gw.backend.requests).toHaveLength(0);
  });

  it("an unknown method or model is Google's 404", async () => {
    const method = await post(gw, "/v1beta/models/m:embedContent", ok);
    expect([method.status, JSON.parse(method.text).error.status]).toEqual([404, "NOT_FOUND"]);
    const model = await fetch(`${gw.url}/v1beta/models/none`);
    expect([model.status, ((await model.json()) as { error: { status: string } }).error.status]).toEqual([
      404,
      "NOT_FOUND",
    ]);
  });

  it("/v1/gemini: model and input are required and named", async () => {
    const noModel = await post(gw, "/v1/gemini", { input: "hi" });
    expect(JSON.parse(noModel.text).error.details[0].fieldViolations[0].field).toBe("model");
    const noInput = await post(gw, "/v1/gemini", { model: "m" });
    expect(JSON.parse(noInput.text).error.details[0].fieldViolations[0].field).toBe("input");
  });
});
