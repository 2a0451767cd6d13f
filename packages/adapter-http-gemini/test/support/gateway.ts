import { createCountingIdGenerator } from "@proxy/core";
import { fixedClock, type TurnSettings, type TurnSummary } from "@proxy/core/gateway";
import { createScriptedBackend, o200kEncoding, type Script, type ScriptedBackend } from "@proxy/core/testing";
import { serveApp } from "@proxy/http-surface/testing";
import { Hono } from "hono";
import { createGeminiApp, createGeminiEndpointApp } from "../../src/index.js";

export interface TestGateway {
  readonly backend: ScriptedBackend;
  /** `http://127.0.0.1:port` (the SDK's `baseUrl`). */
  readonly url: string;
  readonly summaries: TurnSummary[];
  close(): Promise<void>;
}

/**
 * The Gemini sub-apps mounted at /v1beta and /v1 of a real HTTP server over core's scripted
 * backend, with counting ids and a fixed clock so transcripts are reproducible.
 */
export const startGateway = async (
  script: Script,
  options: {
    readonly settings?: Partial<TurnSettings>;
    readonly nativeTools?: boolean;
    readonly keepAliveMs?: number;
  } = {},
): Promise<TestGateway> => {
  const backend = createScriptedBackend(script, {
    models: [{ id: "gemini-2.5-flash" }, { id: "gpt-5.5", description: "GPT" }],
    nativeTools: options.nativeTools ?? false,
  });
  const summaries: TurnSummary[] = [];
  const deps = {
    backend,
    tokens: o200kEncoding,
    ids: createCountingIdGenerator(),
    clock: fixedClock(1_700_000_000_000),
    settings: { stopGraceMs: 0, ...options.settings },
    observer: { onTurnEnd: (s: TurnSummary) => void summaries.push(s) },
    keepAliveMs: options.keepAliveMs,
  };
  const gemini = createGeminiApp(deps);
  const app = new Hono()
    .route("/v1beta", gemini)
    .route("/v1", gemini)
    .route("/v1", createGeminiEndpointApp(deps));
  const served = await serveApp(app);
  return { backend, url: served.origin, summaries, close: served.close };
};

/** POSTs JSON and reads the whole answer as text. */
export const post = async (
  gateway: TestGateway,
  path: string,
  body: unknown,
  headers: Record<string, string> = {},
) => {
  const res = await fetch(`${gateway.url}${path}`, {
    method: "POST",
    headers: { "content-type": "application/json", ...headers },
    body: typeof body === "string" ? body : JSON.stringify(body),
  });
  return { status: res.status, headers: res.headers, text: await res.text() };
};

export const toolBlock = (name: string, args: Record<string, unknown>): string =>
  `<tool_call>${JSON.stringify({ name, arguments: JSON.stringify(args) })}</tool_call>`;

/** The `data:` payloads of a Gemini SSE body (which has nothing but `data:` lines). */
export const sseData = (text: string): unknown[] =>
  text
    .split(/\r?\n\r?\n/)
    .filter((e) => e !== "")
    .map((e) => {
      if (!e.startsWith("data: ") || e.includes("\n"))
        throw new Error(`not a lone data line: ${JSON.stringify(e)}`);
      return JSON.parse(e.slice(6)) as unknown;
    });

export const WEATHER_DECLARATION = {
  name: "get_weather",
  description: "Get the weather for a city",
  parameters: {
    type: "OBJECT",
    properties: { city: { type: "STRING", description: "city" }, unit: { type: "STRING", enum: ["c", "f"] } },
    required: ["city"],
  },
};
