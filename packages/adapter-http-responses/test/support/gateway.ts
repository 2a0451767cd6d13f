import type { AddressInfo } from "node:net";
import { serve } from "@hono/node-server";
import { createCountingIdGenerator } from "@proxy/core";
import type { TurnObserver, TurnSettings, TurnSummary } from "@proxy/core/gateway";
import { fixedClock } from "@proxy/core/gateway";
import { createScriptedBackend, o200kEncoding, type Script, type ScriptedBackend } from "@proxy/core/testing";
import { Hono } from "hono";
import { createResponsesApp } from "../../src/index.js";

export const CREATED_AT_MS = 1_700_000_000_000;

export interface TestGateway {
  /** `http://127.0.0.1:<port>/v1`, what clients take as baseURL. */
  readonly baseURL: string;
  readonly backend: ScriptedBackend;
  /** Every summary the observer received, in order. */
  readonly summaries: TurnSummary[];
  /** Raw JSON bodies of every POST the sub-app received, in order (what real clients sent). */
  readonly bodies: Array<{ readonly path: string; readonly body: unknown }>;
  close(): Promise<void>;
}

/**
 * A real HTTP server (node-server on 127.0.0.1:0) with the sub-app mounted at /v1 the way
 * apps/proxy mounts it, over the core's scripted backend, counting ids and a fixed clock.
 */
export const startGateway = async (
  script: Script,
  options: { readonly settings?: Partial<TurnSettings> } = {},
): Promise<TestGateway> => {
  const backend = createScriptedBackend(script);
  const summaries: TurnSummary[] = [];
  const observer: TurnObserver = { onTurnEnd: (summary) => summaries.push(summary) };
  const bodies: Array<{ path: string; body: unknown }> = [];
  const root = new Hono();
  root.use(async (c, next) => {
    if (c.req.method === "POST")
      bodies.push({
        path: c.req.path,
        body: await c.req.raw
          .clone()
          .json()
          .catch(() => null),
      });
    await next();
  });
  root.route(
    "/v1",
    createResponsesApp({
      backend,
      tokens: o200kEncoding,
      ids: createCountingIdGenerator(),
      clock: fixedClock(CREATED_AT_MS),
      settings: options.settings,
      observer,
    }),
  );
  const server = await new Promise<ReturnType<typeof serve>>((resolve) => {
    const s = serve({ fetch: root.fetch, hostname: "127.0.0.1", port: 0 }, () => resolve(s));
  });
  const { port } = server.address() as AddressInfo;
  return {
    baseURL: `http://127.0.0.1:${port}/v1`,
    backend,
    summaries,
    bodies,
    close: () =>
      new Promise<void>((resolve, reject) => {
        if ("closeAllConnections" in server) server.closeAllConnections();
        server.close((error) => (error ? reject(error) : resolve()));
      }),
  };
};

/** POST a JSON body (or raw text) and return status, headers and the raw body text. */
export const postRaw = async (
  url: string,
  body: unknown,
  headers: Record<string, string> = {},
): Promise<{ status: number; headers: Headers; text: string }> => {
  const response = await fetch(url, {
    method: "POST",
    headers: { "content-type": "application/json", authorization: "Bearer test-key", ...headers },
    body: typeof body === "string" ? body : JSON.stringify(body),
  });
  return { status: response.status, headers: response.headers, text: await response.text() };
};
