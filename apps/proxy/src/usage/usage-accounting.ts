import { type BackendMiddleware, type UsageStore, utcDay } from "@proxy/core/gateway";
import { DEFAULT_CODEX_ROUTE } from "@proxy/routing";
import * as Context from "effect/Context";
import * as Effect from "effect/Effect";
import * as Layer from "effect/Layer";
import type { Registry } from "prom-client";
import { type ApiKey, apiKeysOf } from "../config/api-keys.js";
import type { GatewayConfig } from "../config/config.js";
import { Log, type Logger } from "../observability/logger.js";
import { State } from "../state/gateway-state.js";
import type { AdminDeps } from "./admin-usage.js";
import { keyLabels } from "./key-account.js";
import { keyLimits, type LimitedKey, limitedKeys } from "./key-limits.js";
import { createKeyMetrics } from "./key-metrics.js";
import { createUsageRecorder, type UsageRecorder } from "./usage-recorder.js";

const MINUTE_MS = 60_000;
const DAY_MS = 86_400_000;
/** How often rows older than the retention are deleted (and once at start). */
const RETENTION_SWEEP_MS = 3_600_000;

/** The route usage is accounted under for a turn whose model names no configured route. */
export const UNKNOWN_ROUTE = "(unknown)";

export interface UsageAccounting {
  /** The configured keys, names and limits included (what the auth middlewares take). */
  readonly keys: ReadonlyArray<ApiKey>;
  readonly recorder: UsageRecorder;
  /** The per-key limits as a backend layer; absent when no key has limits. */
  readonly keyLimits: BackendMiddleware | undefined;
  /** The admin endpoints' dependencies, when `PROXY_ADMIN_KEY` is set. */
  readonly admin: AdminDeps | undefined;
  /** Stops the upkeep and writes the usage still gathered in memory. */
  close(): Promise<void>;
}

/**
 * The route a turn that no route took (refused by a limit, say) is accounted under: the route its
 * model names (an id or alias), else one bucket, so names a client makes up add no rows. Without
 * `models`, codex serves every model as its one route.
 */
const routeNamer = (models: GatewayConfig["models"]): ((model: string) => string) => {
  if (models.length === 0) return () => DEFAULT_CODEX_ROUTE;
  const byName = new Map<string, string>();
  for (const route of models)
    for (const name of [route.id, ...(route.aliases ?? [])]) byName.set(name, route.id);
  return (model) => byName.get(model) ?? UNKNOWN_ROUTE;
};

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
  const tokenLimited = named(
    (k) =>
      k.limits.tpm !== undefined ||
      k.limits.tokensPerDay !== undefined ||
      k.limits.webSearchesPerDay !== undefined,
  );
  const log = logger.child({ component: "usage" });
  const recorder = createUsageRecorder({
    store,
    metrics,
    logger: log,
    tracksMinutes: (account) => perMinute.has(account),
    writesAtOnce: (account) => tokenLimited.has(account),
    routeOf: routeNamer(config.models),
    labelOf: keyLabels(keys),
  });
  // Minute buckets older than the current and previous minute are never read again.
  const purgeMinutes = () =>
    void store
      .purgeMinutesBefore(Math.floor(Date.now() / MINUTE_MS) - 1)
      .catch((err: unknown) => log.warn({ err }, "minute buckets not purged"));
  const retentionDays = config.usageRetentionDays;
  const purgeDays = () =>
    store
      .purgeUsageBefore(utcDay(Date.now() - retentionDays * DAY_MS))
      .then(() => undefined)
      .catch((err: unknown) => log.warn({ err }, "old usage rows not purged"));
  const timers = [
    limited.size > 0 ? setInterval(purgeMinutes, MINUTE_MS) : undefined,
    retentionDays > 0 ? setInterval(() => void purgeDays(), RETENTION_SWEEP_MS) : undefined,
  ];
  for (const timer of timers) timer?.unref();
  // The first sweep runs now; admin answers wait for it, so none lists rows past the retention.
  const swept = retentionDays > 0 ? purgeDays() : Promise.resolve();
  return {
    keys,
    recorder,
    keyLimits:
      limited.size === 0
        ? undefined
        : keyLimits({
            store,
            keys: limited,
            metrics,
            onStoreError: (err, key) =>
              log.warn({ err, key }, "limits not checked (store unreachable); turn let through"),
          }),
    admin:
      config.adminKey === ""
        ? undefined
        : {
            adminKey: config.adminKey,
            usage: store,
            settle: async () => {
              await swept;
              await recorder.settle();
            },
          },
    async close() {
      for (const timer of timers) if (timer) clearInterval(timer);
      await swept;
      await recorder.close();
    },
  };
};

/**
 * The usage accounting as a scoped resource over the store (`State`): closed, writing what it
 * still holds, before the store closes.
 */
export class Usage extends Context.Service<Usage, UsageAccounting>()("@proxy/gateway/Usage") {
  static readonly make = (config: GatewayConfig, registry: Registry) =>
    Effect.gen(function* () {
      const { logger } = yield* Log;
      const state = yield* State;
      return yield* Effect.acquireRelease(
        Effect.sync(() => openUsageAccounting(config, state.usage, registry, logger)),
        (usage) => Effect.promise(() => usage.close()),
      );
    });
  static readonly layer = (config: GatewayConfig, registry: Registry) =>
    Layer.effect(Usage, Usage.make(config, registry));
}
