import { DEFAULT_TURN_SETTINGS, type TextBackend } from "@proxy/core/gateway";
import { createScriptedBackend } from "@proxy/core/testing";
import { type BackendStack, createApp, createLogger, createMetrics } from "@proxy/gateway";
import { type Context, Hono } from "hono";
import { streamSSE } from "hono/streaming";
import type { BaselinePayload } from "./child/protocol.js";
import { GATEWAY_UNDER_TEST, scriptFor } from "./scenarios.js";

/** The two apps under test: the gateway as deployed, and the bare baseline that replays its bytes. */

/** The core's scripted backend, not recording requests (a test double's memory would leak under load). */
export const scriptedBackend = (): TextBackend => createScriptedBackend(scriptFor, { record: false });

export const gatewayApp = (stack: BackendStack) =>
  createApp({
    ...stack,
    settings: DEFAULT_TURN_SETTINGS,
    // Silent: the bench measures the request path, not log I/O (documented in docs/benchmarks.md).
    logger: createLogger("silent", { pretty: false }),
    metrics: createMetrics(),
    ...GATEWAY_UNDER_TEST,
    apiKeys: [...GATEWAY_UNDER_TEST.apiKeys],
    corsOrigins: [...GATEWAY_UNDER_TEST.corsOrigins],
    version: "bench",
  });

/**
 * The physical limit: read the body, write the same bytes the gateway wrote, in one write (the
 * gateway writes once per backend batch, and the scripted backend hands over its script at once).
 */
export const baselineApp = (current: () => BaselinePayload | undefined) => {
  const app = new Hono();
  const handler = async (c: Context) => {
    await c.req.arrayBuffer();
    const payload = current();
    if (payload === undefined) return c.text("no payload yet", 503);
    if (!payload.stream) return c.body(payload.events[0] ?? "", 200, payload.headers);
    for (const [k, v] of Object.entries(payload.headers)) c.header(k, v);
    const body = payload.events.join("");
    return streamSSE(c, (stream) => stream.write(body).then(() => undefined));
  };
  app.post("/v1/chat/completions", handler);
  app.post("/v1/responses", handler);
  return app;
};
