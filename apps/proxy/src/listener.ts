import type { Server } from "node:http";
import { createAdaptorServer, type ServerType } from "@hono/node-server";
import * as Context from "effect/Context";
import * as Effect from "effect/Effect";
import * as Layer from "effect/Layer";
import type { Hono } from "hono";
import type { GatewayConfig } from "./config/config.js";
import { guardServer, SERVER_OPTIONS } from "./http/server-guard.js";
import { startStep } from "./start-step.js";
import { listenProblem } from "./startup-problem.js";

/** The bound socket, before the app exists: requests that arrive meanwhile wait for `serve`. */
export interface Listening {
  readonly server: ServerType;
  /** Hands the waiting requests and every later one to the app. */
  serve(app: Hono): void;
  /** Closes the socket and its connections; requests still waiting for an app are dropped. */
  close(): Promise<void>;
}

/** Binds the socket (the guard's limits on it); rejects with the reason `listen` gave. */
const listen = async (config: GatewayConfig): Promise<Listening> => {
  let settle: { resolve(app: Hono): void; reject(reason: unknown): void } | undefined;
  const app = new Promise<Hono>((resolve, reject) => {
    settle = { resolve, reject };
  });
  app.catch(() => undefined);
  let fetch: Hono["fetch"] = (request, env) => app.then((a) => a.fetch(request, env));
  const server = createAdaptorServer({
    fetch: (request, env) => fetch(request, env),
    hostname: config.host,
    serverOptions: SERVER_OPTIONS,
  });
  guardServer(server as Server, { maxConnections: config.maxConnections });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(config.port, config.host, () => {
      server.off("error", reject);
      resolve();
    });
  });
  return {
    server,
    serve(a: Hono) {
      fetch = a.fetch;
      settle?.resolve(a);
    },
    close: () => {
      // A start that failed: the requests waiting for it end with their connections. After a
      // served run the server is closed already and this only makes sure of it.
      settle?.reject(new Error("the gateway did not start"));
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      (server as Server).closeAllConnections();
      return closed;
    },
  };
};

/**
 * The listening socket as a scoped resource, acquired before anything else starts: a port in use
 * ends the start before codex or the store are started, and it is closed after them.
 */
export class Listener extends Context.Service<Listener, Listening>()("@proxy/gateway/Listener") {
  static readonly make = (config: GatewayConfig) =>
    Effect.acquireRelease(
      startStep(
        () => listen(config),
        (error) => listenProblem(error, config),
      ),
      (listening) => Effect.promise(() => listening.close()),
    );
  static readonly layer = (config: GatewayConfig) => Layer.effect(Listener, Listener.make(config));
}
