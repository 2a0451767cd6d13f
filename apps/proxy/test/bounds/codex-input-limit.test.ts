import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type CodexGateway, gatewayOverCodex } from "../reliability/support.js";

const post = (url: string, path: string, body: object) =>
  fetch(`${url}${path}`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify(body),
  });

// codex 0.169 refuses a turn/start input of more than 1,048,576 characters (code points).
const LIMIT = 1_048_576;
const tooLong = "x".repeat(LIMIT + 1);

describe("an input longer than codex takes is the client's 400 (real gateway + real codex)", {
  timeout: 60_000,
}, () => {
  let g: CodexGateway;
  beforeAll(async () => {
    g = await gatewayOverCodex(() => ({ text: "ok" }));
  });
  afterAll(() => g?.close());

  it("Chat: 400 naming `messages`, before any model request (was a 502 from turn/start)", async () => {
    const before = g.provider.requests.length;
    const res = await post(g.url, "/v1/chat/completions", {
      model: "m",
      messages: [{ role: "user", content: tooLong }],
    });
    expect(res.status).toBe(400);
    const body = (await res.json()) as {
      error: { type: string; param: string; code: string; message: string };
    };
    expect(body.error).toMatchObject({
      type: "invalid_request_error",
      param: "messages",
      code: "input_too_long",
    });
    expect(body.error.message).toContain(String(LIMIT));
    expect(g.provider.requests.length).toBe(before);
  });

  it("Responses: 400 naming `input`", async () => {
    const res = await post(g.url, "/v1/responses", { model: "m", input: tooLong });
    expect(res.status).toBe(400);
    expect(((await res.json()) as { error: object }).error).toMatchObject({
      param: "input",
      code: "input_too_long",
    });
  });

  it("Messages: 400 invalid_request_error; Gemini: 400 INVALID_ARGUMENT", async () => {
    const messages = await post(g.url, "/v1/messages", {
      model: "m",
      max_tokens: 100,
      messages: [{ role: "user", content: tooLong }],
    });
    expect(messages.status).toBe(400);
    expect(await messages.json()).toMatchObject({ type: "error", error: { type: "invalid_request_error" } });
    const gemini = await post(g.url, "/v1beta/models/m:generateContent", {
      contents: [{ role: "user", parts: [{ text: tooLong }] }],
    });
    expect(gemini.status).toBe(400);
    expect(await gemini.json()).toMatchObject({ error: { code: 400, status: "INVALID_ARGUMENT" } });
  });

  it("characters are code points, as codex counts them: an input at the limit still runs", async () => {
    const atLimit = await post(g.url, "/v1/chat/completions", {
      model: "m",
      messages: [{ role: "user", content: "x".repeat(LIMIT) }],
    });
    expect(atLimit.status).toBe(200);
    // 600,000 emoji are 1.2M UTF-16 units but 600,000 characters: codex takes them.
    const emoji = await post(g.url, "/v1/chat/completions", {
      model: "m",
      messages: [{ role: "user", content: "😀".repeat(600_000) }],
    });
    expect(emoji.status).toBe(200);
  });
});
