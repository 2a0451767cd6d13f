import { createServer } from "node:net";
import { createScriptedBackend } from "@proxy/core/testing";
import * as Effect from "effect/Effect";
import * as Layer from "effect/Layer";
import { pino } from "pino";
import { describe, expect, it } from "vitest";
import { resolveConfig } from "../src/config/config.js";
import { startGateway } from "../src/gateway.js";
import { Backend } from "../src/runtime.js";
import { GatewayStartError } from "../src/startup-problem.js";

/** A logger whose lines and a backend whose acquisition and release land in one ordered list. */
const recorded = () => {
  const events: string[] = [];
  const logger = pino(
    { level: "info" },
    { write: (l: string) => void events.push(`log: ${JSON.parse(l).msg}`) },
  );
  const backendLayer = Layer.effect(
    Backend,
    Effect.acquireRelease(
      Effect.sync(() => {
        events.push("backend acquired");
        return { backend: createScriptedBackend([{ chunks: ["hi"] }]) };
      }),
      () => Effect.sync(() => void events.push("backend released")),
    ),
  );
  return { events, logger, backendLayer };
};

/** Whether the port can be bound again (the gateway's socket is closed). */
const portFree = (port: number) =>
  new Promise<boolean>((resolve) => {
    const probe = createServer();
    probe.once("error", () => resolve(false));
    probe.listen(port, "127.0.0.1", () => probe.close(() => resolve(true)));
  });

const freePort = () =>
  new Promise<number>((resolve) => {
    const probe = createServer();
    probe.listen(0, "127.0.0.1", () => {
      const { port } = probe.address() as { port: number };
      probe.close(() => resolve(port));
    });
  });

describe("the gateway's resources, acquired and released by its layer graph", () => {
  it("shuts down in the graph's order: the drain first, then the backend, the log's last line last", async () => {
    const { events, logger, backendLayer } = recorded();
    const config = resolveConfig({ env: { PROXY_STORE: "memory" }, flags: { port: "0" } });
    const gateway = await startGateway(config, { logger, backendLayer });
    const answer = await fetch(`${gateway.url}/healthz`);
    expect(answer.status).toBe(200);
    await gateway.shutdown("test");
    const at = (event: string) => events.indexOf(event);
    expect(at("backend acquired")).toBeLessThan(at("log: gateway listening"));
    expect(at("log: shutting down: no new connections")).toBeLessThan(at("backend released"));
    expect(at("backend released")).toBeLessThan(at("log: stopped"));
    expect(events.at(-1)).toBe("log: stopped");
    const port = Number(new URL(gateway.url).port);
    expect(await portFree(port)).toBe(true);
    // A second shutdown (a repeated signal) is the same one.
    await gateway.shutdown("again");
    expect(events.filter((e) => e === "backend released")).toHaveLength(1);
  });

  it("a step that fails releases what was acquired before it and names what to fix", async () => {
    const { events, logger, backendLayer } = recorded();
    const port = await freePort();
    // Nothing listens on port 1: PostgreSQL refuses at once, after the backend was acquired beside it.
    const config = resolveConfig({
      env: { PROXY_STORE: "postgres://u:secret-pw@127.0.0.1:1/db" },
      flags: { port: String(port) },
    });
    const started = startGateway(config, { logger, backendLayer });
    await expect(started).rejects.toBeInstanceOf(GatewayStartError);
    await expect(started).rejects.toThrow(
      /^PROXY_STORE: PostgreSQL at 127\.0\.0\.1:1 refused the connection/,
    );
    expect(events).toContain("backend acquired");
    expect(events).toContain("backend released");
    expect(events).not.toContain("log: gateway listening");
    expect(events).not.toContain("log: stopped");
    expect(await portFree(port)).toBe(true);
  });

  it("a backend that cannot start is a GatewayStartError, and the socket is let go", async () => {
    const { logger } = recorded();
    const port = await freePort();
    const config = resolveConfig({ env: { PROXY_STORE: "memory" }, flags: { port: String(port) } });
    const failing = Layer.effect(Backend, Effect.die(new Error("no such backend")));
    await expect(startGateway(config, { logger, backendLayer: failing })).rejects.toThrow(
      "the backend could not start: no such backend",
    );
    expect(await portFree(port)).toBe(true);
  });

  it("a port in use stops the start before the backend is acquired", async () => {
    const { events, logger, backendLayer } = recorded();
    const holder = createServer();
    await new Promise<void>((resolve) => holder.listen(0, "127.0.0.1", resolve));
    const { port } = holder.address() as { port: number };
    const config = resolveConfig({ env: { PROXY_STORE: "memory" }, flags: { port: String(port) } });
    await expect(startGateway(config, { logger, backendLayer })).rejects.toThrow(
      /^PORT: .* is already in use/,
    );
    expect(events).not.toContain("backend acquired");
    await new Promise((resolve) => holder.close(resolve));
  });
});
