import type { Server } from "node:http";
import type { AddressInfo } from "node:net";
import { serve } from "@hono/node-server";
import { createBackendStack } from "@proxy/gateway";
import type { Hono } from "hono";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { baselineApp, gatewayApp, scriptedBackend } from "../src/apps.js";
import type { BaselinePayload, ControlMessage, ServerChild } from "../src/child/protocol.js";
import { checkWorkload, mirrorScenario } from "../src/http-overhead.js";
import { capture } from "../src/load.js";
import { HTTP_SCENARIOS, SLOW_NEAR_MISS_DELTAS } from "../src/scenarios.js";
import { runHoldback } from "../src/ttfb.js";

/** The bench's two servers in this process, on real loopback sockets, behind the ServerChild interface. */
const servers: Server[] = [];
const start = async (
  app: Hono,
  onControl: (m: ControlMessage) => unknown = () => ({}),
): Promise<ServerChild> => {
  const server = serve({ fetch: app.fetch, port: 0, hostname: "127.0.0.1" }) as Server;
  servers.push(server);
  await new Promise<void>((resolve) => server.once("listening", () => resolve()));
  return {
    mode: "gateway",
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    pid: process.pid,
    request: async <T>(m: ControlMessage) => onControl(m) as T,
    close: async () => {},
  };
};

let gateway: ServerChild;
let baseline: ServerChild;
beforeAll(async () => {
  gateway = await start(gatewayApp(createBackendStack({ backend: scriptedBackend() })));
  let payload: BaselinePayload | undefined;
  baseline = await start(
    baselineApp(() => payload),
    (m) => {
      if (m.type === "serve") payload = m.payload;
      return { ok: true };
    },
  );
});
afterAll(async () => {
  for (const s of servers) {
    s.closeAllConnections();
    await new Promise((resolve) => s.close(resolve));
  }
});

describe("the baseline replays the gateway's own bytes", () => {
  it.each(HTTP_SCENARIOS.map((s) => [s.id, s] as const))("%s", async (_id, scenario) => {
    const mirrored = await mirrorScenario(baseline, gateway, scenario);
    expect(mirrored.baselineBytes).toBe(mirrored.gatewayBytes);
    if (scenario.stream) expect(mirrored.events).toBeGreaterThan(scenario.id.endsWith("text") ? 200 : 10);
  });

  it("refuses to benchmark an answer that lacks the workload", async () => {
    const tools = HTTP_SCENARIOS.find((s) => s.id === "chat-stream-tools");
    const text = HTTP_SCENARIOS.find((s) => s.id === "chat-stream-text");
    if (!tools || !text) throw new Error("scenarios missing");
    const textAnswer = (await capture(gateway.url, text)).body;
    expect(() => checkWorkload(tools, textAnswer)).toThrow(/3 tool calls/);
    expect(() => checkWorkload(text, "data: [DONE]\n\n")).toThrow(/scripted text/);
  });
});

describe("holdback through the real gateway", () => {
  it("forwards every plain-text delta as its own SSE event, never waiting for the next one", async () => {
    const r = await runHoldback(gateway, "bench-slow");
    expect(r.sseTextEvents).toBe(r.backendDeltas);
    expect(r.maxExtraChunks).toBe(0);
  });

  it("holds a trailing `<` until the next delta decides it (the control the measure must see)", async () => {
    const r = await runHoldback(gateway, "bench-slow-near-miss");
    const expected = SLOW_NEAR_MISS_DELTAS.map((d) => (d.endsWith("<") ? 1 : 0));
    expect(r.extraChunks).toEqual(expected);
  });
});
