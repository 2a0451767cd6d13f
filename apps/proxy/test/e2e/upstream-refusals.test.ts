import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import OpenAI from "openai";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runCodexExec } from "./codex-exec-client.js";
import { lastUserText, type RecordedRequest, type ScriptedResponse, startE2E } from "./e2e-gateway.js";

const UNSUPPORTED = "The 'gpt-9' model is not supported when using Codex with a ChatGPT account.";
const BAD_PARAMETER = "Unsupported parameter: 'temperature' is not supported with this model.";
const UNKNOWN = "The model `gpt-9` does not exist or you do not have access to it.";

/** The model provider behind codex refuses as OpenAI's and ChatGPT's do, by what the user asked. */
const provider = (request: RecordedRequest): ScriptedResponse => {
  const ask = lastUserText(request);
  if (ask.includes("unsupported")) return { fail: { status: 400, body: { detail: UNSUPPORTED } } };
  if (ask.includes("parameter"))
    return {
      fail: {
        status: 400,
        body: {
          error: {
            message: BAD_PARAMETER,
            type: "invalid_request_error",
            param: "temperature",
            code: "unsupported_parameter",
          },
        },
      },
    };
  if (ask.includes("unknown"))
    return {
      fail: {
        status: 404,
        body: { error: { message: UNKNOWN, type: "invalid_request_error", code: "model_not_found" } },
      },
    };
  if (ask.includes("unprocessable"))
    return { fail: { status: 422, body: { detail: "input is unprocessable" } } };
  return { text: "fine" };
};

/** Each surface's request for `text`, streamed or not. */
const surfaces: Record<string, (text: string, stream: boolean) => [string, unknown]> = {
  chat: (text, stream) => [
    "/v1/chat/completions",
    { model: "gpt-9", messages: [{ role: "user", content: text }], stream },
  ],
  responses: (text, stream) => ["/v1/responses", { model: "gpt-9", input: text, stream }],
  messages: (text, stream) => [
    "/v1/messages",
    { model: "gpt-9", max_tokens: 64, messages: [{ role: "user", content: text }], stream },
  ],
  gemini: (text, stream) => [
    `/v1beta/models/gpt-9:${stream ? "streamGenerateContent?alt=sse" : "generateContent"}`,
    { contents: [{ role: "user", parts: [{ text }] }] },
  ],
};

/** What each surface answers: the status, and its error body for the provider's `message`. */
const expected = (surface: string, kind: "model" | "request", message: string, code?: string) => {
  const status = kind === "model" ? 404 : 400;
  if (surface === "messages")
    return {
      status,
      body: {
        type: "error",
        error: { type: kind === "model" ? "not_found_error" : "invalid_request_error", message },
      },
    };
  if (surface === "gemini")
    return {
      status,
      body: { error: { code: status, message, status: kind === "model" ? "NOT_FOUND" : "INVALID_ARGUMENT" } },
    };
  return {
    status,
    body: {
      error: {
        message,
        type: "invalid_request_error",
        param: kind === "model" ? "model" : null,
        code: kind === "model" ? "model_not_found" : code,
      },
    },
  };
};

describe("a model provider's refusals keep their meaning through real codex, on every surface", {
  timeout: 180_000,
}, () => {
  let e2e: Awaited<ReturnType<typeof startE2E>>;
  const dirs: string[] = [];
  beforeAll(async () => {
    e2e = await startE2E(provider);
  }, 60_000);
  afterAll(async () => {
    await e2e?.close();
    for (const d of dirs) await rm(d, { recursive: true, force: true });
  });

  const post = async (path: string, body: unknown) => {
    const res = await fetch(`${e2e.url}${path}`, {
      method: "POST",
      headers: { "content-type": "application/json", "anthropic-version": "2023-06-01" },
      body: JSON.stringify(body),
    });
    return { status: res.status, type: res.headers.get("content-type"), body: (await res.json()) as unknown };
  };

  for (const surface of Object.keys(surfaces))
    for (const stream of [false, true])
      it(`${surface}${stream ? ", streaming" : ""}: an unsupported model is a 404, a bad request a 400, in the provider's words`, async () => {
        const ask = surfaces[surface]!;
        const model = await post(...ask("use the unsupported model", stream));
        expect(model).toMatchObject({
          type: expect.stringMatching(/^application\/json/),
          ...expected(surface, "model", UNSUPPORTED),
        });
        const request = await post(...ask("send a bad parameter", stream));
        expect(request).toMatchObject(expected(surface, "request", BAD_PARAMETER, "unsupported_parameter"));
        // Neither the provider's JSON nor its address reaches the client.
        expect(JSON.stringify([model.body, request.body])).not.toMatch(/\\"detail\\"|127\.0\.0\.1|url:/);
      });

  it("a 404 codex recognises and a 422 are a 404 model_not_found and a 400 upstream_rejected", async () => {
    expect(await post(...surfaces.chat!("an unknown model", false))).toMatchObject(
      expected("chat", "model", UNKNOWN),
    );
    expect(await post(...surfaces.chat!("an unprocessable input", false))).toMatchObject(
      expected("chat", "request", "input is unprocessable", "upstream_rejected"),
    );
  });

  it("the openai SDK does not retry them", async () => {
    const client = new OpenAI({ baseURL: `${e2e.url}/v1`, apiKey: "unused" });
    const before = e2e.provider.requests.length;
    const error = await client.chat.completions
      .create({ model: "gpt-9", messages: [{ role: "user", content: "use the unsupported model" }] })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(OpenAI.NotFoundError);
    expect(error).toMatchObject({ code: "model_not_found", param: "model", message: `404 ${UNSUPPORTED}` });
    expect(e2e.provider.requests.length).toBe(before + 1);
  });

  it("codex exec (default retries) prints the provider's words once and stops: no Reconnecting", async () => {
    const work = await mkdtemp(join(tmpdir(), "refusal-exec-"));
    dirs.push(work);
    const before = e2e.provider.requests.length;
    const run = await runCodexExec(e2e.url, work, dirs, {
      prompt: "use the unsupported model",
      retries: "default",
    });
    expect(run.code).not.toBe(0);
    expect(run.stderr).toContain(`ERROR: ${UNSUPPORTED}`);
    expect(run.stderr).not.toMatch(/Reconnecting/);
    expect(e2e.provider.requests.length).toBe(before + 1);
  });
});
