import OpenAI from "openai";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { PHOTO, PNG, startImageServer } from "../support/image-server.js";
import { startE2E } from "./e2e-gateway.js";

const DATA_URL = `data:image/png;base64,${PNG.toString("base64")}`;

describe("remote images are fetched by the gateway (real codex app-server)", { timeout: 60_000 }, () => {
  let images: Awaited<ReturnType<typeof startImageServer>>;
  let e2e: Awaited<ReturnType<typeof startE2E>>;
  let client: OpenAI;
  beforeAll(async () => {
    images = await startImageServer();
    // The test's image server is on loopback: allowed explicitly, as an operator would.
    e2e = await startE2E(() => ({ text: "A cat." }), { PROXY_IMAGE_FETCH_ALLOW: `127.0.0.1/32` });
    client = new OpenAI({ baseURL: `${e2e.url}/v1`, apiKey: "sk-none", maxRetries: 0 });
  });
  afterAll(async () => {
    await e2e.close();
    await images.close();
  });

  /** Every image URL codex sent the model provider in its last request. */
  const upstreamImages = () =>
    JSON.stringify(e2e.provider.requests.at(-1)?.body.input ?? []).match(
      /data:image\/[a-z]+;base64,[A-Za-z0-9+/=]+|https?:\/\/[^"]+/g,
    ) ?? [];

  it("chat image_url over http reaches the model inline", async () => {
    const answer = await client.chat.completions.create({
      model: "m",
      messages: [
        {
          role: "user",
          content: [
            { type: "text", text: "What is this?" },
            { type: "image_url", image_url: { url: images.url("/to-cat") } },
          ],
        },
      ],
    });
    expect(answer.choices[0]?.message.content).toBe("A cat.");
    expect(upstreamImages()).toEqual([DATA_URL]);
  });

  it("a fetched 5 MB photo reaches the model whole, streamed or not, on Chat and Messages", async () => {
    const photo = `data:image/png;base64,${PHOTO().toString("base64")}`;
    const answer = await client.chat.completions.create({
      model: "m",
      messages: [
        {
          role: "user",
          content: [
            { type: "text", text: "What is this?" },
            { type: "image_url", image_url: { url: images.url("/photo.png") } },
          ],
        },
      ],
    });
    expect(answer.choices[0]?.message.content).toBe("A cat.");
    expect(upstreamImages()).toEqual([photo]);
    const stream = await fetch(`${e2e.url}/v1/messages`, {
      method: "POST",
      headers: { "content-type": "application/json", "anthropic-version": "2023-06-01" },
      body: JSON.stringify({
        model: "m",
        max_tokens: 100,
        stream: true,
        messages: [
          {
            role: "user",
            content: [
              { type: "text", text: "What is this?" },
              { type: "image", source: { type: "url", url: images.url("/photo.png") } },
            ],
          },
        ],
      }),
    });
    const events = await stream.text();
    expect(events).toContain('"text":"A cat."');
    expect(events).toContain("event: message_stop");
    expect(upstreamImages()).toEqual([photo]);
  });

  it("Gemini fileData with an http(s) fileUri reaches the model inline; a refused one names its field", async () => {
    const generate = (fileUri: string) =>
      fetch(`${e2e.url}/v1beta/models/m:generateContent`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({
          contents: [
            {
              role: "user",
              parts: [{ text: "What is this?" }, { fileData: { mimeType: "image/png", fileUri } }],
            },
          ],
        }),
      });
    const ok = await generate(images.url("/cat.png"));
    expect(ok.status).toBe(200);
    const answer = (await ok.json()) as {
      candidates: Array<{ content: { parts: Array<{ text?: string }> } }>;
    };
    expect(answer.candidates[0]?.content.parts[0]?.text).toBe("A cat.");
    expect(upstreamImages()).toEqual([DATA_URL]);
    const turns = e2e.provider.requests.length;
    const refused = await generate("http://169.254.169.254/latest/meta-data/x.png");
    expect(refused.status).toBe(400);
    const body = (await refused.json()) as { error: { message: string } };
    expect(body.error).toMatchObject({ code: 400, status: "INVALID_ARGUMENT" });
    expect(body.error.message).toContain("contents[0].parts[1].fileData.fileUri");
    expect(e2e.provider.requests.length).toBe(turns);
  });

  it("responses input_image over http reaches the model inline", async () => {
    const response = await client.responses.create({
      model: "m",
      input: [
        {
          role: "user",
          content: [
            { type: "input_text", text: "What is this?" },
            { type: "input_image", image_url: images.url("/cat.png"), detail: "auto" },
          ],
        },
      ],
    });
    expect(response.output_text).toBe("A cat.");
    expect(upstreamImages()).toEqual([DATA_URL]);
  });

  it("an image a tool returned (function_call_output content) reaches the model inline too", async () => {
    const call = { type: "function_call" as const, call_id: "call_1", name: "screenshot", arguments: "{}" };
    const response = await client.responses.create({
      model: "m",
      input: [
        { role: "user", content: "Take a screenshot." },
        call,
        {
          type: "function_call_output",
          call_id: "call_1",
          output: [
            { type: "input_text", text: "Here it is." },
            { type: "input_image", image_url: images.url("/cat.png"), detail: "auto" },
          ],
        },
      ],
    });
    expect(response.output_text).toBe("A cat.");
    expect(upstreamImages()).toEqual([DATA_URL]);
    expect(JSON.stringify(e2e.provider.requests.at(-1)?.body.input)).not.toContain("omitted");
  });

  it("chat: an image part in a tool message reaches the model inline", async () => {
    const res = await fetch(`${e2e.url}/v1/chat/completions`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({
        model: "m",
        messages: [
          { role: "user", content: "Take a screenshot." },
          {
            role: "assistant",
            content: null,
            tool_calls: [
              { id: "call_1", type: "function", function: { name: "screenshot", arguments: "{}" } },
            ],
          },
          {
            role: "tool",
            tool_call_id: "call_1",
            content: [
              { type: "text", text: "Here it is." },
              { type: "image_url", image_url: { url: images.url("/cat.png") } },
            ],
          },
        ],
      }),
    });
    expect(res.status).toBe(200);
    expect(upstreamImages()).toEqual([DATA_URL]);
  });

  it.each([
    ["a private address", "http://10.20.30.40/cat.png", /not public/],
    ["a redirect to a private address", "/to-private", /not public/],
    ["a page that is not an image", "/page.html", /not an image/],
  ])("%s is a 400 naming the image's path, and no backend turn runs", async (_, where, reason) => {
    const before = e2e.provider.requests.length;
    const url = where.startsWith("/") ? images.url(where) : where;
    const res = await fetch(`${e2e.url}/v1/chat/completions`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({
        model: "m",
        messages: [
          { role: "user", content: "hi" },
          { role: "assistant", content: "hello" },
          {
            role: "user",
            content: [
              { type: "text", text: "and this?" },
              { type: "image_url", image_url: { url } },
            ],
          },
        ],
      }),
    });
    expect(res.status).toBe(400);
    const body = (await res.json()) as { error: { param: string; message: string; code: string } };
    expect(body.error).toMatchObject({
      param: "messages[2].content[1].image_url",
      code: "invalid_image_url",
    });
    expect(body.error.message).toMatch(reason);
    expect(e2e.provider.requests.length).toBe(before);
  });

  it("responses: a refused image names input[i].content[j].image_url", async () => {
    const res = await fetch(`${e2e.url}/v1/responses`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({
        model: "m",
        input: [
          { role: "user", content: [{ type: "input_image", image_url: "http://169.254.169.254/latest" }] },
        ],
      }),
    });
    expect(res.status).toBe(400);
    expect(((await res.json()) as { error: { param: string } }).error.param).toBe(
      "input[0].content[0].image_url",
    );
  });
});
