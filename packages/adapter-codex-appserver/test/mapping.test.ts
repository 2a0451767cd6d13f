import { describe, expect, it } from "vitest";
import { mapCodexFinishReason, mapCodexTurnError, mapRpcError } from "../src/index.js";
import { silentLogger } from "../src/logger.js";
import { ConnectionClosedError, JsonRpcError, RequestTimeoutError } from "../src/transport/rpc-errors.js";
import { createTurnMapper } from "../src/turn/turn-mapper.js";

describe("codex → gateway mappings", () => {
  it.each([
    ["contextWindowExceeded", "context_length_exceeded", "context_length_exceeded"],
    [{ responseTooManyFailedAttempts: { httpStatusCode: 429 } }, "rate_limited", "rate_limit_exceeded"],
    [{ httpConnectionFailed: { httpStatusCode: 401 } }, "backend_auth", "backend_auth"],
    ["unauthorized", "backend_auth", "backend_auth"],
    ["usageLimitExceeded", "rate_limited", "insufficient_quota"],
    ["rateLimitExceeded", "rate_limited", "rate_limit_exceeded"],
    ["internalServerError", "backend_error", "internalServerError"],
    ["other", "backend_error", "backend_error"],
    [undefined, "backend_error", "backend_error"],
  ])("codexErrorInfo %j → %s", (codexErrorInfo, kind, code) => {
    const error = mapCodexTurnError({ message: "upstream said no", codexErrorInfo });
    expect(error).toMatchObject({ kind, code });
    if (kind === "backend_auth") expect(error.message).toMatch(/Run `codex login` again/);
  });

  // What codex 0.169 reports for a provider's HTTP refusals (recorded against the scripted provider).
  it.each([
    [
      "a 400 quoted whole (an account that cannot use the model)",
      {
        message: '{"detail":"The \'gpt-9\' model is not supported when using Codex with a ChatGPT account."}',
        codexErrorInfo: "other",
      },
      { kind: "not_found", code: "model_not_found", param: "model" },
      "The 'gpt-9' model is not supported when using Codex with a ChatGPT account.",
    ],
    [
      "a 400 with OpenAI's error object",
      {
        message:
          '{"error":{"message":"Unsupported parameter: \'foo\'.","type":"invalid_request_error","param":"foo","code":"unsupported_parameter"}}',
        codexErrorInfo: "other",
      },
      { kind: "invalid_request", code: "unsupported_parameter" },
      "Unsupported parameter: 'foo'.",
    ],
    [
      "a 404 codex recognised",
      { message: "The model `gpt-9` does not exist.", codexErrorInfo: "modelNotFound" },
      { kind: "not_found", code: "model_not_found" },
      "The model `gpt-9` does not exist.",
    ],
    [
      "a 404 quoted after its status",
      {
        message: 'unexpected status 404 Not Found: {"detail":"Not Found"}, url: http://10.0.0.7/v1/responses',
        codexErrorInfo: { httpConnectionFailed: { httpStatusCode: 404 } },
      },
      { kind: "not_found", code: "model_not_found" },
      "Not Found",
    ],
    [
      "a 422 quoted after its status",
      {
        message: 'unexpected status 422 Unprocessable Entity: {"detail":"unprocessable"}',
        codexErrorInfo: { httpConnectionFailed: { httpStatusCode: 422 } },
      },
      { kind: "invalid_request", code: "upstream_rejected" },
      "unprocessable",
    ],
  ])("%s keeps its meaning, in the provider's own words", (_, error, expected, message) => {
    const mapped = mapCodexTurnError(error);
    expect(mapped).toMatchObject({ ...expected, message });
    expect(mapped.retryable).toBe(false);
  });

  it("a 5xx, a broken stream or a 408 stays retryable; a missing provider key is the operator's to fix", () => {
    const retried = [
      { message: "stream disconnected before completion: boom", codexErrorInfo: "other" },
      {
        message: "unexpected status 408 Request Timeout: timeout",
        codexErrorInfo: { httpConnectionFailed: { httpStatusCode: 408 } },
      },
      { message: "We're currently experiencing high demand", codexErrorInfo: "internalServerError" },
    ];
    for (const error of retried) expect(mapCodexTurnError(error).retryable).toBe(true);
    const missing = mapCodexTurnError({
      message: "Missing environment variable: `PROXY_KEY`.",
      codexErrorInfo: "other",
    });
    expect(missing).toMatchObject({ kind: "backend_auth" });
    expect(missing.message).toContain("Set PROXY_KEY in the gateway's environment");
  });

  it.each([
    [new JsonRpcError(-32600, "Invalid request: missing field `input`"), "invalid_request"],
    [new JsonRpcError(-32001, "Server overloaded; retry later."), "overloaded"],
    [new JsonRpcError(-32603, "internal"), "backend_error"],
    [new JsonRpcError(-32099, "whatever"), "backend_error"],
    [new ConnectionClosedError(), "backend_unavailable"],
    [new RequestTimeoutError("turn/start", 5), "timeout"],
  ])("JSON-RPC failure %s → %s", (e, kind) => {
    expect(mapRpcError(e, "turn/start")).toMatchObject({ kind });
  });

  it("never passes a URL through to the client; the original stays in the cause", () => {
    const message =
      "unexpected status 401 Unauthorized: bad key, url: http://10.0.0.7:8080/v1/responses, see https://example.internal/help";
    const error = mapCodexTurnError({ message, codexErrorInfo: "unauthorized" });
    expect(error.message).toContain("(HTTP 401: bad key, see <url>)");
    expect(error.message).not.toMatch(/10\.0\.0\.7|example\.internal|https?:/);
    expect(error.cause).toMatchObject({ message });
    expect(mapRpcError(new JsonRpcError(-32603, "fetch https://a.b/c failed"), "thread/start").message).toBe(
      "codex thread/start failed: fetch <url> failed",
    );
  });

  it("finish: completed and interrupted stop, anything else is an error finish", () => {
    expect(mapCodexFinishReason("completed")).toEqual({ reason: "stop", raw: "completed" });
    expect(mapCodexFinishReason("interrupted")).toEqual({ reason: "stop", raw: "interrupted" });
    expect(mapCodexFinishReason("weird")).toEqual({ reason: "error", raw: "weird" });
  });
});

describe("turn notification mapper", () => {
  const t = { threadId: "th", turnId: "tu" };

  it("ignores phantom MCP errors and retries, and reports the turn's own error when it fails", () => {
    const m = createTurnMapper(silentLogger);
    expect(
      m.map("error", {
        ...t,
        willRetry: false,
        error: { message: "resources/list failed: unknown MCP server 'obsidian'" },
      }),
    ).toEqual([]);
    expect(m.map("error", { ...t, willRetry: true, error: { message: "Reconnecting... 1/5" } })).toEqual([]);
    expect(
      m.map("error", {
        ...t,
        willRetry: false,
        error: { message: "boom", codexErrorInfo: "internalServerError" },
      }),
    ).toEqual([]);
    const out = m.map("turn/completed", {
      threadId: "th",
      turn: { id: "tu", status: "failed", error: null },
    });
    expect(out).toMatchObject([{ type: "error", error: { kind: "backend_error", message: "boom" } }]);
    expect(m.done()).toBe(true);
  });

  it("emits usage from codex's counters once, right before the finish, and separates summary parts", () => {
    const m = createTurnMapper(silentLogger);
    const usage = (n: number) => ({
      inputTokens: n,
      outputTokens: 1,
      totalTokens: n + 1,
      cachedInputTokens: 0,
      reasoningOutputTokens: 0,
    });
    expect(m.map("item/reasoning/summaryTextDelta", { ...t, delta: "a", summaryIndex: 0 })).toEqual([
      { type: "reasoning-delta", delta: "a" },
    ]);
    expect(m.map("item/reasoning/summaryTextDelta", { ...t, delta: "b", summaryIndex: 1 })).toEqual([
      { type: "reasoning-delta", delta: "\n\nb" },
    ]);
    expect(
      m.map("thread/tokenUsage/updated", { ...t, tokenUsage: { total: usage(10), last: usage(10) } }),
    ).toEqual([]);
    expect(
      m.map("thread/tokenUsage/updated", { ...t, tokenUsage: { total: usage(30), last: usage(20) } }),
    ).toEqual([]);
    expect(m.map("turn/completed", { threadId: "th", turn: { id: "tu", status: "completed" } })).toEqual([
      { type: "usage", usage: usage(30) },
      { type: "finish", finish: { reason: "stop", raw: "completed" } },
    ]);
  });
});
