import { createCountingIdGenerator } from "@proxy/core";
import { fixedClock, type TurnObserver, type TurnSettings, type TurnSummary } from "@proxy/core/gateway";
import { createScriptedBackend, o200kEncoding, type Script, type ScriptedBackend } from "@proxy/core/testing";
import { serveApp } from "@proxy/http-surface/testing";
import { Hono } from "hono";
import { createMessagesApp } from "../../src/index.js";

export interface TestGateway {
  readonly backend: ScriptedBackend;
  /** The server root: the Anthropic SDK's `baseURL` (it appends `/v1/messages` itself). */
  readonly url: string;
  readonly summaries: TurnSummary[];
  close(): Promise<void>;
}

/**
 * The sub-app mounted at /v1 of a real HTTP server on an ephemeral port, over the core's scripted
 * backend, with counting ids and a fixed clock so transcripts are byte-for-byte reproducible.
 */
export const startGateway = async (
  script: Script,
  options: {
    readonly settings?: Partial<TurnSettings>;
    readonly keepAliveMs?: number;
    /** Declare native function calling on the scripted backend. */
    readonly nativeTools?: boolean;
  } = {},
): Promise<TestGateway> => {
  const backend = createScriptedBackend(script, { nativeTools: options.nativeTools ?? false });
  const summaries: TurnSummary[] = [];
  const observer: TurnObserver = { onTurnEnd: (s) => summaries.push(s) };
  const messages = createMessagesApp({
    backend,
    tokens: o200kEncoding,
    ids: createCountingIdGenerator(),
    clock: fixedClock(1_700_000_000_000),
    settings: { stopGraceMs: 0, ...options.settings },
    observer,
    keepAliveMs: options.keepAliveMs ?? 0,
  });
  const app = new Hono().route("/v1", messages);
  const served = await serveApp(app);
  return { backend, url: served.origin, summaries, close: served.close };
};

/** POSTs a body to `/v1/messages` (or another path) and reads the whole answer as text. */
export const post = async (
  gateway: TestGateway,
  body: unknown,
  options: { readonly path?: string; readonly headers?: Record<string, string> } = {},
) => {
  const res = await fetch(`${gateway.url}${options.path ?? "/v1/messages"}`, {
    method: "POST",
    headers: { "content-type": "application/json", "anthropic-version": "2023-06-01", ...options.headers },
    body: typeof body === "string" ? body : JSON.stringify(body),
  });
  return { status: res.status, headers: res.headers, text: await res.text() };
};
