import { createSchemaCache } from "@proxy/core";
import { createScriptedBackend } from "@proxy/core/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { serveApp } from "../support/serve-app.js";
import { postJson } from "./support.js";

const schema = (field: string) => ({
  type: "object",
  properties: { [field]: { type: "string" } },
  required: [field],
  additionalProperties: false,
});

// Every surface compiling into its own cache meant one set of ajv engines, each compiling its
// meta-schemas on the event loop, per surface; one app has one cache.
describe("one compiled-schema cache serves every surface of an app", () => {
  const schemas = createSchemaCache();
  let server: Awaited<ReturnType<typeof serveApp>>;
  beforeAll(async () => {
    server = await serveApp(
      createScriptedBackend(() => ({ chunks: ["ok"] })),
      { schemas },
    );
  });
  afterAll(() => server?.close());

  it("strict tools sent through Chat, Responses, Messages and Gemini all compile into it", async () => {
    const chat = await postJson(`${server.url}/v1/chat/completions`, {
      model: "m",
      messages: [{ role: "user", content: "hi" }],
      tools: [{ type: "function", function: { name: "a", strict: true, parameters: schema("chat") } }],
    });
    expect(chat.status).toBe(200);
    const responses = await postJson(`${server.url}/v1/responses`, {
      model: "m",
      input: "hi",
      tools: [{ type: "function", name: "a", strict: true, parameters: schema("responses") }],
    });
    expect(responses.status).toBe(200);
    const messages = await postJson(`${server.url}/v1/messages`, {
      model: "m",
      max_tokens: 16,
      messages: [{ role: "user", content: "hi" }],
      tools: [{ name: "a", strict: true, input_schema: schema("messages") }],
    });
    expect(messages.status).toBe(200);
    const gemini = await postJson(`${server.url}/v1beta/models/m:generateContent`, {
      contents: [{ role: "user", parts: [{ text: "hi" }] }],
      tools: [{ functionDeclarations: [{ name: "a", parameters: schema("gemini") }] }],
      toolConfig: { functionCallingConfig: { mode: "VALIDATED" } },
    });
    expect(gemini.status).toBe(200);
    expect(schemas.size()).toBe(4);
    // The same tool again, through another surface, is a cache hit.
    await postJson(`${server.url}/v1/messages`, {
      model: "m",
      max_tokens: 16,
      messages: [{ role: "user", content: "hi" }],
      tools: [{ name: "a", strict: true, input_schema: schema("chat") }],
    });
    expect(schemas.size()).toBe(4);
  });
});
