/**
 * The gateway app as an earlier commit built it (BENCH_BEFORE_DIR): its `@proxy/gateway` createApp
 * and its core's scripted backend, loaded from that tree's dist (so its own hono, effect and
 * adapters). Only this process loads it, and nothing of this checkout's gateway. The earlier API is
 * read defensively: what is missing is named, and what is optional (the backend wrapper) is skipped.
 */
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { GATEWAY_UNDER_TEST, scriptFor } from "../scenarios.js";

type Fn = (...args: never[]) => unknown;
type Module = Record<string, unknown>;

const load = async (dir: string, path: string): Promise<Module> =>
  (await import(pathToFileURL(join(dir, path)).href)) as Module;

const fn = (m: Module, name: string, where: string): Fn => {
  const f = m[name];
  if (typeof f !== "function") throw new Error(`BENCH_BEFORE_DIR: ${where} exports no ${name}()`);
  return f as Fn;
};

export interface BeforeGateway {
  readonly fetch: (request: Request) => Response | Promise<Response>;
  /** Turns in flight, when that build's backend wrapper reports it. */
  readonly activeTurns?: () => number;
}

export const beforeGatewayApp = async (dir: string): Promise<BeforeGateway> => {
  const gatewayDist = "apps/proxy/dist/index.js";
  const [gateway, core, testing] = await Promise.all([
    load(dir, gatewayDist),
    load(dir, "packages/core/dist/index.js"),
    load(dir, "packages/core/dist/testing/index.js"),
  ]);
  const call = (m: Module, name: string, where: string, ...args: unknown[]) =>
    (fn(m, name, where) as (...a: unknown[]) => unknown)(...args);
  const scripted = call(testing, "createScriptedBackend", "packages/core/dist/testing", scriptFor, {
    record: false,
  });
  // A build with a backend stack takes its stream port and control plane apart; an earlier one took
  // one wrapped backend (createGatewayBackend); the earliest had no wrapper at all.
  const stack: { readonly backend: unknown; readonly control?: unknown } =
    typeof gateway.createBackendStack === "function"
      ? ((gateway.createBackendStack as (b: unknown) => { backend: unknown; control: unknown })({
          backend: scripted,
        }) as { backend: unknown; control: unknown })
      : {
          backend:
            typeof gateway.createGatewayBackend === "function"
              ? (gateway.createGatewayBackend as (b: unknown) => unknown)(scripted)
              : scripted,
        };
  const app = call(gateway, "createApp", gatewayDist, {
    ...stack,
    settings: core.DEFAULT_TURN_SETTINGS,
    logger: call(gateway, "createLogger", gatewayDist, "silent", { pretty: false }),
    metrics: call(gateway, "createMetrics", gatewayDist),
    ...GATEWAY_UNDER_TEST,
    apiKeys: [],
    corsOrigins: [],
    version: "bench-before",
  }) as { fetch?: BeforeGateway["fetch"] };
  if (typeof app.fetch !== "function") throw new Error(`BENCH_BEFORE_DIR: createApp() returned no fetch()`);
  const owner = (stack.control ?? stack.backend) as { activeTurns?: () => number };
  const active = owner.activeTurns;
  return {
    fetch: app.fetch.bind(app),
    ...(typeof active === "function" ? { activeTurns: () => active.call(owner) } : {}),
  };
};
