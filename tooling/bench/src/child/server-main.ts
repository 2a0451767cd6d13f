/**
 * Entry of a server child process (see protocol.ts). argv[2] is the mode:
 * - `baseline`: a bare Hono + @hono/node-server app replaying the gateway's own response bytes;
 * - `gateway`: the real gateway app over the core's scripted backend (workloads in scenarios.ts);
 * - `gateway-codex`: the real gateway app over the codex app-server backend (CODEX_HOME from env);
 * - `gateway-before`: the gateway app of an earlier build (BENCH_BEFORE_DIR) over its scripted backend.
 * Each mode imports only what it serves (a before process holds no copy of this checkout's gateway).
 */
import type { Server } from "node:http";
import { Session } from "node:inspector/promises";
import type { AddressInfo } from "node:net";
import { serve } from "@hono/node-server";
import type { BaselinePayload, ControlMessage, MemoryReply, ServerMode, StatsReply } from "./protocol.js";

const mode = process.argv[2] as ServerMode;

/** One process, one server; all state lives in this closure. */
const main = async () => {
  let payload: BaselinePayload | undefined; // the baseline's current response, replaced per scenario
  let gateway: { activeTurns(): number } | undefined;
  let closeBackend: () => Promise<void> = async () => {};

  type App = { fetch: (request: Request) => Response | Promise<Response> };
  const buildApp = async (): Promise<App> => {
    if (mode === "gateway-before") {
      const { beforeGatewayApp } = await import("./before-gateway.js");
      const before = await beforeGatewayApp(process.env.BENCH_BEFORE_DIR ?? "");
      if (before.activeTurns) gateway = { activeTurns: before.activeTurns };
      return before;
    }
    const { baselineApp, gatewayApp, scriptedBackend } = await import("../apps.js");
    if (mode === "baseline") return baselineApp(() => payload);
    const { createBackendStack } = await import("@proxy/gateway");
    if (mode === "gateway") {
      const stack = createBackendStack({ backend: scriptedBackend() });
      gateway = stack.control;
      return gatewayApp(stack);
    }
    // The gateway's own setting, so a run can compare with warm threads off.
    const { createCodexBackend } = await import("@proxy/adapter-codex-appserver");
    const warm = process.env.PROXY_CODEX_WARM_THREADS;
    const codex = createCodexBackend({ env: process.env, ...(warm ? { warmThreads: Number(warm) } : {}) });
    await codex.warmup();
    closeBackend = () => codex.close();
    const stack = createBackendStack({ backend: codex });
    gateway = stack.control;
    return gatewayApp(stack);
  };

  const app = await buildApp();
  const server = serve({ fetch: app.fetch, port: 0, hostname: "127.0.0.1" }) as Server;
  await new Promise<void>((resolve) => server.once("listening", () => resolve()));
  let requests = 0;
  server.on("request", () => {
    requests++;
  });
  let cpuStart = process.cpuUsage();

  const profiler = new Session();
  const gc = (globalThis as { gc?: () => void }).gc;
  const handle = async (message: ControlMessage): Promise<unknown> => {
    switch (message.type) {
      case "stats-start":
        requests = 0;
        cpuStart = process.cpuUsage();
        return { cpuUs: 0, requests: 0 } satisfies StatsReply;
      case "stats-stop": {
        const cpu = process.cpuUsage(cpuStart);
        return { cpuUs: cpu.user + cpu.system, requests } satisfies StatsReply;
      }
      case "memory": {
        if (message.gc && gc) for (let i = 0; i < 3; i++) gc();
        const m = process.memoryUsage();
        return {
          rss: m.rss,
          heapUsed: m.heapUsed,
          external: m.external,
          arrayBuffers: m.arrayBuffers,
          ...(gateway ? { activeTurns: gateway.activeTurns() } : {}),
        } satisfies MemoryReply;
      }
      case "profile-start":
        profiler.connect();
        await profiler.post("Profiler.enable");
        await profiler.post("Profiler.start");
        return { ok: true };
      case "profile-stop": {
        const { profile } = await profiler.post("Profiler.stop");
        profiler.disconnect();
        return profile;
      }
      case "serve":
        payload = message.payload;
        return { ok: true };
      case "shutdown":
        server.closeAllConnections();
        await new Promise<void>((resolve) => server.close(() => resolve()));
        await closeBackend();
        process.exit(0);
    }
  };

  process.on("message", (raw) => {
    const message = raw as ControlMessage & { id: number };
    void handle(message).then((reply) => process.send?.({ id: message.id, reply }));
  });
  process.on("disconnect", () => process.exit(0));
  process.send?.({ type: "ready", port: (server.address() as AddressInfo).port });
};

await main();
