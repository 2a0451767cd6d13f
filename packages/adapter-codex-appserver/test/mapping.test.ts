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
    if (kind === "backend_auth") expect(error.message).toMatch(/run `codex login`/);
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
    expect(error.message).toContain("unexpected status 401 Unauthorized: bad key, see <url>");
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
