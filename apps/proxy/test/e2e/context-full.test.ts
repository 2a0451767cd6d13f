import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import OpenAI from "openai";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type CodexGateway, gatewayOverCodex } from "../reliability/support.js";
import { runClaudeCode, runGeminiCli } from "./cli-clients.js";

/**
 * A full context window in each client's own words, over the real codex binary: the model provider
 * refuses the turn with `context_length_exceeded` (as OpenAI's does), codex reports
 * `contextWindowExceeded`, and each surface answers the way its real API does, with the model's
 * window from codex's catalog. Claude Code compacts on "prompt is too long: N tokens > M maximum",
 * OpenAI clients act on the code `context_length_exceeded`.
 */
const MODEL = "gpt-5.5";
// codex's catalog: a 272,000-token window of which codex uses 95 %.
const WINDOW = 258_400;
const long = "word ".repeat(20_000);
/** A prompt the provider refuses once as too long (until the conversation was compacted). */
const OVERFLOW = "OVERFLOW-MARKER say hi";
/** A prompt the provider always refuses as too long. */
const ALWAYS_FULL = "ALWAYS-FULL";
const SUMMARY = "The user said hello, then asked to say hi.";
/** Claude Code's compaction request asks for a summary of the conversation so far. */
const COMPACTION = /summary of the conversation so far|detailed summary of the conversation/i;
const FULL = {
  event: "failed",
  code: "context_length_exceeded",
  message: "Your input exceeds the context window of this model.",
} as const;

const post = async (url: string, body: unknown, headers: Record<string, string> = {}) => {
  const res = await fetch(url, {
    method: "POST",
    headers: { "content-type": "application/json", ...headers },
    body: JSON.stringify(body),
  });
  return { status: res.status, json: (await res.json()) as Record<string, unknown> };
};

describe("a full context window, in each client's words (real codex)", { timeout: 120_000 }, () => {
  let g: CodexGateway;
  beforeAll(async () => {
    let refusedOverflow = false;
    g = await gatewayOverCodex((request) => {
      const input = JSON.stringify(request.body.input);
      if (input.includes("word word") || input.includes(ALWAYS_FULL)) return { fail: FULL };
      if (COMPACTION.test(input))
        return { text: "<summary>The user said hello, then asked to say hi.</summary>" };
      if (input.includes(OVERFLOW) && !refusedOverflow) {
        refusedOverflow = true;
        return { fail: FULL };
      }
      return { text: "fine, hi" };
    });
  });
  afterAll(() => g?.close());

  it("Messages: 400 invalid_request_error, prompt is too long: N tokens > M maximum", async () => {
    for (const stream of [false, true]) {
      const { status, json } = await post(`${g.url}/v1/messages`, {
        model: MODEL,
        max_tokens: 100,
        stream,
        messages: [{ role: "user", content: long }],
      });
      expect([stream, status, json.type, (json.error as { type: string }).type]).toEqual([
        stream,
        400,
        "error",
        "invalid_request_error",
      ]);
      const message = (json.error as { message: string }).message;
      const [, tokens, max] = /^prompt is too long: (\d+) tokens > (\d+) maximum$/.exec(message) ?? [];
      expect(Number(max)).toBe(WINDOW);
      expect(Number(tokens)).toBeGreaterThan(WINDOW);
    }
  });

  it("Chat: 400 context_length_exceeded on messages, in OpenAI's words with both counts", async () => {
    const { status, json } = await post(`${g.url}/v1/chat/completions`, {
      model: MODEL,
      messages: [{ role: "user", content: long }],
    });
    expect(status).toBe(400);
    expect(json.error).toMatchObject({
      type: "invalid_request_error",
      param: "messages",
      code: "context_length_exceeded",
    });
    expect((json.error as { message: string }).message).toMatch(
      new RegExp(
        `^This model's maximum context length is ${WINDOW} tokens\\. However, your messages resulted in \\d+ tokens\\. Please reduce the length of the messages\\.$`,
      ),
    );
  });

  it("Responses: 400 context_length_exceeded on input, in the Responses API's words", async () => {
    const { status, json } = await post(`${g.url}/v1/responses`, { model: MODEL, input: long });
    expect(status).toBe(400);
    expect(json.error).toEqual({
      type: "invalid_request_error",
      param: "input",
      code: "context_length_exceeded",
      message: "Your input exceeds the context window of this model. Please adjust your input and try again.",
    });
  });

  it("Gemini: 400 INVALID_ARGUMENT, the input token count against the model's limit", async () => {
    const { status, json } = await post(`${g.url}/v1beta/models/${MODEL}:generateContent`, {
      contents: [{ role: "user", parts: [{ text: long }] }],
    });
    expect(status).toBe(400);
    const error = json.error as { code: number; status: string; message: string };
    expect([error.code, error.status]).toEqual([400, "INVALID_ARGUMENT"]);
    const [, tokens, max] =
      /^The input token count \((\d+)\) exceeds the maximum number of tokens allowed \((\d+)\)\.$/.exec(
        error.message,
      ) ?? [];
    expect(Number(max)).toBe(WINDOW);
    expect(Number(tokens)).toBeGreaterThan(WINDOW);
  });

  it("the model lists give each model's context window where clients read it", async () => {
    const get = async (path: string, headers: Record<string, string> = {}) =>
      (await (await fetch(`${g.url}${path}`, { headers })).json()) as Record<string, unknown>;
    const openai = (await get("/v1/models")).data as Array<{ id: string; context_window?: number }>;
    expect(openai.find((m) => m.id === MODEL)?.context_window).toBe(WINDOW);
    const anthropic = (await get("/v1/models", { "anthropic-version": "2023-06-01" })).data as Array<{
      id: string;
      max_input_tokens?: number;
    }>;
    expect(anthropic.find((m) => m.id === MODEL)?.max_input_tokens).toBe(WINDOW);
    const gemini = (await get("/v1beta/models", { "x-goog-api-key": "k" })).models as Array<{
      name: string;
      inputTokenLimit?: number;
    }>;
    expect(gemini.find((m) => m.name === `models/${MODEL}`)?.inputTokenLimit).toBe(WINDOW);
  });
  it("Claude Code compacts the conversation and retries, as it does with Anthropic's API", async () => {
    const dir = await mkdtemp(join(tmpdir(), "context-full-"));
    try {
      const args = ["--model", MODEL];
      const first = await runClaudeCode(g.url, dir, { prompt: "first question, say hello", args });
      expect(first.code).toBe(0);
      const from = g.provider.requests.length;
      const next = await runClaudeCode(g.url, dir, {
        prompt: OVERFLOW,
        args: [...args, "--continue"],
        retries: "default",
      });
      const inputs = g.provider.requests.slice(from).map((r) => JSON.stringify(r.body.input));
      // Refused as too long, then Claude Code's own compaction request, then the prompt again on the summary.
      expect(inputs.map((i) => [i.includes(OVERFLOW), COMPACTION.test(i), i.includes(SUMMARY)])).toEqual([
        [true, false, false],
        [false, true, false],
        [true, false, true],
      ]);
      expect([next.code, JSON.parse(next.stdout).result]).toEqual([0, "fine, hi"]);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
  it("the openai SDK (default retries) throws BadRequestError context_length_exceeded at once, unretried", async () => {
    const from = g.provider.requests.length;
    const client = new OpenAI({ baseURL: `${g.url}/v1`, apiKey: "unused" });
    const error = await client.chat.completions
      .create({ model: MODEL, messages: [{ role: "user", content: ALWAYS_FULL }] })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(OpenAI.BadRequestError);
    expect(error).toMatchObject({ status: 400, code: "context_length_exceeded", param: "messages" });
    expect(g.provider.requests.length - from).toBe(1);
  });

  it("the Gemini CLI (default retries) shows Google's message and stops", async () => {
    const dir = await mkdtemp(join(tmpdir(), "context-full-gemini-"));
    try {
      const from = g.provider.requests.length;
      const run = await runGeminiCli(dir, g.url, { key: "unused", prompt: ALWAYS_FULL, retries: "default" });
      expect(run.code).not.toBe(0);
      // gemini-2.5-pro is not in codex's catalog: the window is unknown, the words are Google's.
      expect(run.stderr).toContain(
        '"message":"The input token count exceeds the maximum number of tokens allowed.","status":"INVALID_ARGUMENT"',
      );
      expect(g.provider.requests.length - from).toBe(1);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
