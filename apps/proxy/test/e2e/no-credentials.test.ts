import { spawnSync } from "node:child_process";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import Anthropic from "@anthropic-ai/sdk";
import OpenAI from "openai";
import { pino } from "pino";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { NOT_LOGGED_IN } from "../../src/backend/require-auth.js";
import { resolveConfig } from "../../src/config/config.js";
import { type RunningGateway, startGateway } from "../../src/gateway.js";
import { runClaudeCode, runGeminiCli } from "./cli-clients.js";
import { runCodexExec } from "./codex-exec-client.js";

/**
 * "Within seconds", generously: from the gateway's refusal to the client giving up (its own start-up,
 * which a loaded 2-core machine can stretch past 10 s for the Gemini CLI, is not the gateway's doing).
 */
const PROMPTLY_MS = 15_000;

/**
 * The gateway on an empty CODEX_HOME (codex not logged in, the likeliest first run), and each real
 * client at its default retry settings: every one shows the fix and stops, after one request.
 */
describe("the default codex backend without credentials", { timeout: 180_000 }, () => {
  let gateway: RunningGateway;
  let home = "";
  const dirs: string[] = [];
  const logs: Array<Record<string, unknown>> = [];
  beforeAll(async () => {
    home = await mkdtemp(join(tmpdir(), "codex-empty-home-"));
    const logger = pino({ level: "info" }, { write: (l: string) => void logs.push(JSON.parse(l)) });
    gateway = await startGateway(resolveConfig({ env: {}, flags: { port: "0" } }), {
      logger,
      env: { ...process.env, CODEX_HOME: home },
    });
  }, 60_000);
  afterAll(async () => {
    await gateway?.shutdown("test done");
    for (const d of [home, ...dirs]) await rm(d, { recursive: true, force: true });
  });

  /**
   * The turns the gateway refused for want of credentials while `run` ran (each try of a retry
   * counts), and how long the client went on after the first refusal.
   */
  const refusedDuring = async <T>(run: () => Promise<T>) => {
    const before = logs.length;
    const result = await run();
    const ended = Date.now();
    const refused = logs.slice(before).filter((l) => l.msg === "request" && l.error === "backend_auth");
    const first = Number(refused[0]?.time) - Number(refused[0]?.durationMs ?? 0);
    return { result, refused: refused.length, afterRefusalMs: ended - first };
  };
  const work = async () => {
    const dir = await mkdtemp(join(tmpdir(), "no-credentials-client-"));
    dirs.push(dir);
    return dir;
  };

  it("warns at start naming the binary to log in with, and /readyz is not ready, saying why", async () => {
    const warning = logs.find((l) => l.level === 40 && String(l.msg).includes("codex is not logged in"));
    expect(String(warning?.msg)).toMatch(/\(\S+codex(\.js)? login, same CODEX_HOME\)/);
    const ready = await fetch(`${gateway.url}/readyz`);
    expect(ready.status).toBe(503);
    expect(await ready.json()).toMatchObject({ status: "not_ready", ready: false, detail: NOT_LOGGED_IN });
    expect((await fetch(`${gateway.url}/healthz`)).status).toBe(200);
  });

  it("answers each surface in its own error shape, streaming or not, with no Retry-After", async () => {
    const post = (path: string, body: unknown) =>
      fetch(`${gateway.url}${path}`, {
        method: "POST",
        headers: { "content-type": "application/json", "anthropic-version": "2023-06-01" },
        body: JSON.stringify(body),
      });
    const messages = [{ role: "user", content: "hi" }];
    const contents = [{ role: "user", parts: [{ text: "hi" }] }];
    const openai = {
      error: { message: NOT_LOGGED_IN, type: "authentication_error", param: null, code: "backend_auth" },
    };
    const cases: Array<[string, unknown, number, unknown]> = [
      ["/v1/chat/completions", { model: "gpt-5.5", messages }, 403, openai],
      ["/v1/chat/completions", { model: "gpt-5.5", messages, stream: true }, 403, openai],
      ["/v1/responses", { model: "gpt-5.5", input: "hi" }, 400, openai],
      ["/v1/responses", { model: "gpt-5.5", input: "hi", stream: true }, 400, openai],
      [
        "/v1/messages",
        { model: "claude-sonnet-4-5", max_tokens: 16, messages, stream: true },
        403,
        { type: "error", error: { type: "permission_error", message: NOT_LOGGED_IN } },
      ],
      [
        "/v1beta/models/gemini-2.5-pro:streamGenerateContent?alt=sse",
        { contents },
        403,
        { error: { code: 403, message: NOT_LOGGED_IN, status: "PERMISSION_DENIED" } },
      ],
      [
        "/v1beta/models/gemini-2.5-pro:generateContent",
        { contents },
        403,
        { error: { code: 403, message: NOT_LOGGED_IN, status: "PERMISSION_DENIED" } },
      ],
    ];
    for (const [path, body, status, shape] of cases) {
      const res = await post(path, body);
      expect({ path, status: res.status }).toEqual({ path, status });
      expect(res.headers.get("content-type")).toMatch(/^application\/json/);
      expect(res.headers.get("retry-after")).toBeNull();
      expect(await res.json()).toEqual(shape);
    }
  });

  it("the openai SDK (default retries) throws the message at once, after one request per call", async () => {
    const client = new OpenAI({ baseURL: `${gateway.url}/v1`, apiKey: "unused" });
    const chat = await refusedDuring(() =>
      client.chat.completions
        .create({ model: "gpt-5.5", messages: [{ role: "user", content: "hi" }], stream: true })
        .catch((e: unknown) => e),
    );
    expect(chat.result).toBeInstanceOf(OpenAI.PermissionDeniedError);
    expect(chat.result).toMatchObject({ status: 403, code: "backend_auth", message: `403 ${NOT_LOGGED_IN}` });
    const responses = await refusedDuring(() =>
      client.responses.create({ model: "gpt-5.5", input: "hi" }).catch((e: unknown) => e),
    );
    expect(responses.result).toBeInstanceOf(OpenAI.BadRequestError);
    expect(responses.result).toMatchObject({ status: 400, message: `400 ${NOT_LOGGED_IN}` });
    for (const call of [chat, responses]) {
      expect(call.refused).toBe(1);
      expect(call.afterRefusalMs).toBeLessThan(PROMPTLY_MS);
    }
  });

  it("the Anthropic SDK (default retries) throws the message at once, after one request", async () => {
    const client = new Anthropic({ baseURL: gateway.url, apiKey: "unused" });
    const call = await refusedDuring(() =>
      client.messages
        .create({ model: "claude-sonnet-4-5", max_tokens: 16, messages: [{ role: "user", content: "hi" }] })
        .catch((e: unknown) => e),
    );
    expect(call.result).toBeInstanceOf(Anthropic.PermissionDeniedError);
    expect(call.result).toMatchObject({ status: 403, error: { error: { message: NOT_LOGGED_IN } } });
    expect(call.refused).toBe(1);
    expect(call.afterRefusalMs).toBeLessThan(PROMPTLY_MS);
  });

  it("Claude Code -p (its own retries) prints the message and stops", async () => {
    const dir = await work();
    const { result, refused, afterRefusalMs } = await refusedDuring(() =>
      runClaudeCode(gateway.url, dir, { retries: "default" }),
    );
    expect(result.code).not.toBe(0);
    expect(JSON.parse(result.stdout)).toMatchObject({
      is_error: true,
      api_error_status: 403,
      result: `Failed to authenticate. API Error: 403 ${NOT_LOGGED_IN}`,
    });
    expect(refused).toBe(1);
    expect(afterRefusalMs).toBeLessThan(PROMPTLY_MS);
  });

  it("codex exec (default request and stream retries) prints the message and stops", async () => {
    const dir = await work();
    const { result, refused, afterRefusalMs } = await refusedDuring(() =>
      runCodexExec(gateway.url, dir, dirs, { prompt: "say hi", retries: "default" }),
    );
    expect(result.code).not.toBe(0);
    expect(result.stderr).toContain(NOT_LOGGED_IN);
    expect(result.stderr).not.toMatch(/Reconnecting/);
    expect(refused).toBe(1);
    expect(afterRefusalMs).toBeLessThan(PROMPTLY_MS);
  });

  it("the Gemini CLI (default attempts) prints the message and stops", async () => {
    const dir = await work();
    const { result, refused, afterRefusalMs } = await refusedDuring(() =>
      runGeminiCli(dir, gateway.url, { key: "unused", prompt: "say hi", retries: "default" }),
    );
    expect(result.code).not.toBe(0);
    expect(result.stderr).toContain(`"message":"${NOT_LOGGED_IN}","status":"PERMISSION_DENIED"`);
    expect(refused).toBe(1);
    expect(afterRefusalMs).toBeLessThan(PROMPTLY_MS);
  });

  it("a login with the checkout's command is picked up without a restart: /readyz turns ready", async () => {
    // The command the message names for a checkout, run from the repository root; an API key
    // login needs no network, and codex checks the key only when it sends a request.
    const root = fileURLToPath(new URL("../../../..", import.meta.url));
    const login = spawnSync("apps/proxy/node_modules/.bin/codex", ["login", "--with-api-key"], {
      cwd: root,
      env: { PATH: process.env.PATH ?? "", HOME: home, CODEX_HOME: home },
      input: "sk-gateway-test",
      encoding: "utf8",
    });
    expect(login.status, login.stderr).toBe(0);
    await expect
      .poll(async () => (await fetch(`${gateway.url}/readyz`)).status, { timeout: 30_000, interval: 500 })
      .toBe(200);
  });
});
