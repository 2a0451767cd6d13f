import type { AddressInfo } from "node:net";
import { serve } from "@hono/node-server";
import { createCountingIdGenerator } from "@proxy/core";
import { fixedClock, type TurnObserver, type TurnSettings, type TurnSummary } from "@proxy/core/gateway";
import { createScriptedBackend, o200kEncoding, type Script, type ScriptedBackend } from "@proxy/core/testing";
import { Hono } from "hono";
import { createChatCompletionsApp } from "../../src/index.js";

/** 2023-11-14T22:13:20Z: every transcript's `created` is 1700000000. */
export const FIXED_EPOCH_MS = 1_700_000_000_000;

export interface TestGateway {
  readonly backend: ScriptedBackend;
  readonly baseURL: string;
  readonly summaries: TurnSummary[];
  close(): Promise<void>;
}

/**
 * The sub-app mounted at /v1 of a real HTTP server on an ephemeral port, over the core's scripted
 * backend, with counting ids and a fixed clock so transcripts are byte-for-byte reproducible.
 */
export const startGateway = async (
  script: Script,
  options: { readonly settings?: Partial<TurnSettings>; readonly keepAliveMs?: number } = {},
): Promise<TestGateway> => {
  const backend = createScriptedBackend(script);
  const summaries: TurnSummary[] = [];
  const observer: TurnObserver = { onTurnEnd: (s) => summaries.push(s) };
  const chat = createChatCompletionsApp({
    backend,
    tokens: o200kEncoding,
    ids: createCountingIdGenerator(),
    clock: fixedClock(FIXED_EPOCH_MS),
    settings: { stopGraceMs: 0, ...options.settings },
    observer,
    keepAliveMs: options.keepAliveMs,
  });
  const app = new Hono().route("/v1", chat);
  const server = await new Promise<ReturnType<typeof serve>>((resolve) => {
    const s = serve({ fetch: app.fetch, hostname: "127.0.0.1", port: 0 }, () => resolve(s));
  });
  const { port } = server.address() as AddressInfo;
  return {
    backend,
    baseURL: `http://127.0.0.1:${port}/v1`,
    summaries,
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.close((err) => (err ? reject(err) : resolve()));
        (server as { closeAllConnections?: () => void }).closeAllConnections?.();
      }),
  };
};

/** POSTs a JSON body to /chat/completions and reads the whole answer as text (Obsidian's CORS path). */
export const postChat = async (gateway: TestGateway, body: unknown, headers: Record<string, string> = {}) => {
  const res = await fetch(`${gateway.baseURL}/chat/completions`, {
    method: "POST",
    headers: { "content-type": "application/json", ...headers },
    body: typeof body === "string" ? body : JSON.stringify(body),
  });
  return { status: res.status, headers: res.headers, text: await res.text() };
};

/** The `data:` payloads of an SSE body, `[DONE]` included, comments dropped. */
export const sseData = (text: string): string[] =>
  text
    .split("\n\n")
    .flatMap((event) =>
      event
        .split("\n")
        .filter((l) => l.startsWith("data: "))
        .map((l) => l.slice(6)),
    )
    .filter((d) => d !== "");
