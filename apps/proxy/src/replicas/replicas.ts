import type { BackendMiddleware, TextBackend } from "@proxy/core/gateway";
import * as Context from "effect/Context";
import * as Effect from "effect/Effect";
import * as Layer from "effect/Layer";
import type { Context as HonoContext } from "hono";
import type { GatewayConfig } from "../config/config.js";
import type { ReplicaTurnOutcome } from "../observability/backend-metrics.js";
import { Log } from "../observability/logger.js";
import { Backend } from "../runtime.js";
import { startStep } from "../start-step.js";
import { GatewayStartError } from "../startup-problem.js";
import { State } from "../state/gateway-state.js";
import { internalTurnRoute } from "./internal-turn.js";
import { createOwnership } from "./ownership.js";
import { replicaForwarding, settledLocally } from "./replica-forwarding.js";

/** What the gateway gets when its replicas share conversations. */
export interface ReplicaSharing {
  /** The forwarding layer (one entry of the backend stack). */
  readonly forwarding: BackendMiddleware;
  /** Around the turns other replicas forward here: their end waits for the owner record. */
  readonly settle: BackendMiddleware;
  /** `POST /internal/turn`, over the backend forwarded turns run on. */
  readonly route: (backend: TextBackend) => (c: HonoContext) => Promise<Response>;
}

/** How long past the live-thread idle time a row may stay before any replica sweeps it. */
const STALE_MARGIN_MS = 60_000;

const notShared = (what: string) =>
  new GatewayStartError(
    `PROXY_REPLICA_URL: replicas share live codex conversations through a shared store; ${what}.`,
  );

/**
 * Replicas sharing conversations (`PROXY_REPLICA_URL`, docs/state.md "Replicas"): this replica's
 * live codex conversations are written to the store's owners table as codex keeps and lets go of
 * them, and turns for conversations another replica holds are passed to it. Opened after the store
 * and the backend (it reads both); at its release, before either closes, it stops recording and
 * removes this replica's rows, so no replica forwards to one that is going away.
 */
export class Replicas extends Context.Service<Replicas, { readonly sharing: ReplicaSharing | undefined }>()(
  "@proxy/gateway/Replicas",
) {
  static readonly make = (config: GatewayConfig, observe?: (outcome: ReplicaTurnOutcome) => void) =>
    Effect.gen(function* () {
      if (config.replicaUrl === "") return { sharing: undefined };
      const { logger } = yield* Log;
      const { owners } = yield* State;
      const { codex } = yield* Backend;
      if (owners === undefined) return yield* Effect.fail(notShared("this gateway has no shared store"));
      if (codex === undefined)
        return yield* Effect.fail(
          notShared(
            "no model route of this gateway runs on codex, so it has none to share (unset PROXY_REPLICA_URL)",
          ),
        );
      const { conversations } = codex;
      const self = config.replicaUrl.replace(/\/+$/, "");
      const log = logger.child({ component: "replicas" });
      return yield* Effect.acquireRelease(
        startStep(
          async () => {
            // A replica that starts holds nothing: rows its earlier life left at this URL go.
            await owners.releaseOwner(self);
            const ownership = createOwnership(owners, self, log);
            const unwatch = conversations.watch(ownership.observe);
            const keysOf = (request: Parameters<typeof conversations.keysOf>[0]) =>
              conversations.keysOf(request);
            const sharing: ReplicaSharing = {
              forwarding: replicaForwarding({
                self,
                secret: config.replicaSecret,
                timeoutMs: config.replicaTimeoutMs,
                owners,
                ownership,
                keysOf,
                logger: log,
                observe,
              }),
              settle: {
                stream: (request, options, next) => settledLocally(next(request, options), ownership),
              },
              route: (backend) =>
                internalTurnRoute({
                  secret: config.replicaSecret,
                  backend,
                  keysOf,
                  holds: ownership.holds,
                  logger: log,
                }),
            };
            // A row older than any live thread can be idle is one a replica killed outright left.
            const horizonMs = config.codexLiveThreadIdleMs + STALE_MARGIN_MS;
            const sweeper = setInterval(
              () =>
                void owners.releaseStale(Date.now() - horizonMs).catch((err: unknown) => {
                  log.warn({ err }, "could not sweep stale rows from the owners table");
                }),
              Math.min(Math.max(config.codexLiveThreadIdleMs, 10_000), 300_000),
            );
            sweeper.unref();
            log.info({ replicaUrl: self }, "replicas share live conversations");
            return { sharing, unwatch, ownership, sweeper };
          },
          (error) =>
            `PROXY_REPLICA_URL: could not clear this replica's earlier rows in the store's owners table: ${error instanceof Error ? error.message : String(error)}`,
        ),
        ({ unwatch, ownership, sweeper }) =>
          Effect.promise(async () => {
            clearInterval(sweeper);
            unwatch();
            await ownership.settled();
            await owners.releaseOwner(self).catch((err: unknown) => {
              log.warn({ err }, "could not remove this replica's rows from the owners table");
              return 0;
            });
          }),
      ).pipe(Effect.map(({ sharing }) => ({ sharing })));
    });

  static readonly layer = (config: GatewayConfig, observe?: (outcome: ReplicaTurnOutcome) => void) =>
    Layer.effect(Replicas, Replicas.make(config, observe));
}
