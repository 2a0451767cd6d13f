import type { TextBackend, UsageStore } from "@proxy/core";
import type { Registry } from "prom-client";
import { type ApiKey, apiKeysOf } from "../config/api-keys.js";
import type { GatewayConfig } from "../config/config.js";
import type { Logger } from "../observability/logger.js";
import type { AdminDeps } from "./admin-usage.js";
import { type LimitedKey, limitedKeys, limitKeys } from "./key-limits.js";
import { createKeyMetrics } from "./key-metrics.js";
import { createUsageRecorder, type UsageRecorder } from "./usage-recorder.js";

const MINUTE_MS = 60_000;

export interface UsageAccounting {
  /** The configured keys, names and limits included (what the auth middlewares take). */
  readonly keys: ReadonlyArray<ApiKey>;
  readonly recorder: UsageRecorder;
  /** The backend behind the per-key limits. */
  limit<B extends TextBackend>(backend: B): B;
  /** The admin endpoints' dependencies, when `PROXY_ADMIN_KEY` is set. */
  readonly admin: AdminDeps | undefined;
  /** Stops the upkeep and writes the usage still gathered in memory. */
  close(): Promise<void>;
}

/** Per-key usage accounting, limits and admin endpoints over the gateway's store. */
export const openUsageAccounting = (
  config: GatewayConfig,
  store: UsageStore,
  registry: Registry,
  logger: Logger,
): UsageAccounting => {
  const keys = apiKeysOf(config.apiKeys);
  const metrics = createKeyMetrics(registry);
  const limited = limitedKeys(keys);
  const named = (has: (k: LimitedKey) => boolean) =>
    new Set([...limited.values()].filter(has).map((k) => k.name));
  const perMinute = named((k) => k.limits.tpm !== undefined);
  const tokenLimited = named((k) => k.limits.tpm !== undefined || k.limits.tokensPerDay !== undefined);
  const log = logger.child({ component: "usage" });
  const recorder = createUsageRecorder({
    store,
    metrics,
    logger: log,
    tracksMinutes: (account) => perMinute.has(account),
    writesAtOnce: (account) => tokenLimited.has(account),
  });
  // Minute buckets older than the current and previous minute are never read again.
  const purge = () =>
    void store
      .purgeMinutesBefore(Math.floor(Date.now() / MINUTE_MS) - 1)
      .catch((err: unknown) => log.warn({ err }, "minute buckets not purged"));
  const purger = limited.size > 0 ? setInterval(purge, MINUTE_MS) : undefined;
  purger?.unref();
  return {
    keys,
    recorder,
    limit: (backend) =>
      limitKeys(backend, {
        store,
        keys: limited,
        metrics,
        onStoreError: (err, key) =>
          log.warn({ err, key }, "limits not checked (store unreachable); turn let through"),
      }),
    admin:
      config.adminKey === ""
        ? undefined
        : { adminKey: config.adminKey, usage: store, settle: recorder.settle },
    async close() {
      if (purger) clearInterval(purger);
      await recorder.close();
    },
  };
};
