import { randomBytes } from "node:crypto";
import { hostname } from "node:os";
import {
  failAbandonedTurns,
  MAX_LEASE_MS,
  type RunningTurn,
  type StoredStateOptions,
  settleRunningTurns,
} from "@proxy/adapter-http-responses";
import { openPostgresStore, openSqliteStore, type SqlStore } from "@proxy/adapter-store-sql";
import type { UsageStore } from "@proxy/core/gateway";
import * as Context from "effect/Context";
import * as Effect from "effect/Effect";
import * as Layer from "effect/Layer";
import type { GatewayConfig } from "../config/config.js";
import { Log, type Logger } from "../observability/logger.js";
import { startStep } from "../start-step.js";
import { storeProblem } from "../startup-problem.js";
import { describeLocation, durationMs, storeLocation } from "./store-location.js";

/** Timings a test may shorten; production uses the defaults. */
export interface StateTimings {
  /** Event flush / lease renewal / follower poll interval. */
  readonly pollMs?: number;
  /** How often expired retention is purged. */
  readonly purgeEveryMs?: number;
}

export interface GatewayState {
  /** What the Responses sub-app gets; undefined with `PROXY_STORE=none`. */
  readonly stored: StoredStateOptions | undefined;
  /** Per-key usage and limit counters: in the store, or in memory with `PROXY_STORE=none`. */
  readonly usage: UsageStore;
  /** Waits for this process's background turns to store their outcome (bounded), then closes the store. */
  close(): Promise<void>;
}

const PURGE_EVERY_MS = 10 * 60_000;
/**
 * At shutdown the backend drain has already let background turns finish or stopped them; this bounds
 * the wait for them to write that outcome (a store that stopped answering must not hang the exit).
 */
const SETTLE_MS = 5_000;

const openStore = (config: GatewayConfig): Promise<SqlStore> | undefined => {
  const location = storeLocation(config.store, config.dataDir);
  const limits = { maxConversationBytes: config.storeMaxConversationBytes };
  switch (location.kind) {
    case "none":
      return undefined;
    case "memory":
      return openSqliteStore(":memory:", Date.now(), limits);
    case "sqlite":
      return openSqliteStore(location.path, Date.now(), limits);
    case "postgres":
      return openPostgresStore(location.url, limits);
  }
};

/**
 * Opens the configured store (migrating it) and runs its upkeep in the background: expired
 * retention is purged, and background turns whose process died are failed once their lease ends.
 */
export const openGatewayState = async (
  config: GatewayConfig,
  logger: Logger,
  timings: StateTimings = {},
): Promise<GatewayState> => {
  const opening = openStore(config);
  if (opening === undefined) {
    // Stateless: usage and limits are counted in memory for this process's lifetime.
    const usage = await openSqliteStore(":memory:");
    return { stored: undefined, usage, close: () => usage.close() };
  }
  const store = await opening;
  const leaseMs = Math.min(config.storeLeaseMs, MAX_LEASE_MS);
  // Renewals come often enough that a cancel from another replica lands within half a second.
  const pollMs = timings.pollMs ?? Math.min(500, Math.floor(leaseMs / 4));
  const ttlMs = durationMs(config.storeTtl);
  const log = logger.child({ component: "store" });
  log.info({ store: describeLocation(storeLocation(config.store, config.dataDir)), ttlMs }, "store open");

  let upkeep: Promise<unknown> = Promise.resolve();
  const run = (what: string, work: () => Promise<number>) => {
    upkeep = upkeep
      .then(work)
      .then((count) => {
        if (count > 0) log.info({ count }, what);
      })
      .catch((error: unknown) => log.warn({ err: error }, `${what} failed`));
  };
  const reap = () =>
    run("background turns failed after their lease expired", () => failAbandonedTurns(store, Date.now()));
  const purge = () => run("expired responses and conversations purged", () => store.purgeExpired(Date.now()));
  reap();
  purge();
  const reaper = setInterval(reap, Math.max(100, Math.floor(leaseMs / 2)));
  const purger = setInterval(purge, timings.purgeEveryMs ?? PURGE_EVERY_MS);
  reaper.unref();
  purger.unref();
  const running = new Map<string, RunningTurn>();

  return {
    stored: {
      store,
      ttlMs,
      maxResponseBytes: config.storeMaxResponseBytes,
      autocreateConversations: config.conversationsAutocreate,
      replicaId: `${hostname()}-${process.pid}-${randomBytes(4).toString("hex")}`,
      leaseMs,
      pollMs,
      running,
    },
    usage: store,
    async close() {
      const unsettled = await settleRunningTurns(running, SETTLE_MS);
      if (unsettled > 0)
        log.warn({ count: unsettled }, "background turns did not store their outcome before shutdown");
      clearInterval(reaper);
      clearInterval(purger);
      await upkeep;
      await store.close();
    },
  };
};

/**
 * The store as a scoped resource: opened (and migrated) when the gateway starts, closed after
 * everything that writes to it (the usage accounting, the Responses surface) has stopped. A store
 * that cannot be opened fails the start with a GatewayStartError naming `PROXY_STORE`.
 */
export class State extends Context.Service<State, GatewayState>()("@proxy/gateway/State") {
  static readonly make = (config: GatewayConfig, timings: StateTimings = {}) =>
    Effect.gen(function* () {
      const { logger } = yield* Log;
      return yield* Effect.acquireRelease(
        startStep(
          () => openGatewayState(config, logger, timings),
          (error) => storeProblem(error, config),
        ),
        (state) => Effect.promise(() => state.close()),
      );
    });
  static readonly layer = (config: GatewayConfig, timings: StateTimings = {}) =>
    Layer.effect(State, State.make(config, timings));
}
