import { setTimeout as delay } from "node:timers/promises";
import { GatewayError } from "@proxy/core";
import {
  type BackendReadiness,
  backendStream,
  createAdmissionGate,
  type TextBackend,
} from "@proxy/core/gateway";
import type { CodexBackendOptions } from "./codex-backend-options.js";
import { resolveCodexCommand } from "./codex-binary.js";
import { type CodexAuthStatus, createCodexControl } from "./codex-control.js";
import { silentLogger } from "./logger.js";
import { createAppServerPool } from "./pool/app-server-pool.js";
import { createThreadSource, type WarmThreadCounts } from "./pool/warm-threads.js";
import { createPlanLimits } from "./rate-limits.js";
import { prepareSealedWorkspace } from "./sealing/sealed-workspace.js";
import { createLiveThreads, type LiveThreadCounts } from "./threads/live-threads.js";
import { DEFAULT_FLOW_LIMITS, type FlowLimits } from "./transport/stdout-flow.js";
import { runCodexTurn, type TurnContext } from "./turn/codex-turn.js";

export type { CodexBackendOptions } from "./codex-backend-options.js";
export type { CodexAuthStatus } from "./codex-control.js";

export type CodexBackend = TextBackend & {
  /** `item/tool/call` requests of native turns not yet answered (returns to 0 when turns end). */
  pendingToolRequests(): number;
  /** Bytes of codex notifications held for turns' readers now, over all app-servers (see stdout-flow.ts). */
  heldNotificationBytes(): number;
  /** Threads started ahead of time: ready, still starting, and how many turns got one. */
  warmThreads(): WarmThreadCounts;
  /** Threads kept alive for their conversation, and how many requests continued one. */
  liveThreads(): LiveThreadCounts;
  close(): Promise<void>;
  checkAuth(): Promise<CodexAuthStatus>;
  /** Resolves once the sealed catalog exists and an app-server is ready (startup check / tests). */
  warmup(): Promise<void>;
  /** Shutdown has begun: app-servers that exit are no longer restarted. */
  beginShutdown(): void;
};

/** `TextBackend` over sealed, supervised, concurrent `codex app-server` processes. */
export const createCodexBackend = (options: CodexBackendOptions = {}): CodexBackend => {
  const logger = options.logger ?? silentLogger;
  const source = options.env ?? process.env;
  const command = resolveCodexCommand(options.codexBin, source);
  const requestTimeoutMs = options.requestTimeoutMs ?? 30_000;
  const startTimeoutMs = options.startTimeoutMs ?? 30_000;
  const admission = createAdmissionGate({
    maxInFlight: options.maxInFlight ?? 16,
    maxQueue: options.maxQueue ?? 64,
    overloadedMessage: "the codex backend is at capacity; retry shortly",
  });
  const workspace = prepareSealedWorkspace({ command, source, passEnv: options.passEnv ?? [], logger });
  const planLimits = createPlanLimits();
  const now = options.now ?? Date.now;
  const flow: FlowLimits = {
    perTurnBytes: options.maxPendingNotificationBytes ?? DEFAULT_FLOW_LIMITS.perTurnBytes,
    perProcessBytes: options.maxPendingNotificationBytesPerProcess ?? DEFAULT_FLOW_LIMITS.perProcessBytes,
    stalledReaderMs: options.stalledReaderMs ?? DEFAULT_FLOW_LIMITS.stalledReaderMs,
  };
  const { pool, nativeTools, readRawMessages } = createAppServerPool(options, {
    command,
    workspace,
    logger,
    startTimeoutMs,
    flow,
    onAccountNotification: planLimits.observe,
  });
  const control = createCodexControl(pool, { startTimeoutMs, requestTimeoutMs });

  const threads = createThreadSource({
    perConfig: options.warmThreads ?? 1,
    maxConfigs: options.warmThreadConfigs ?? 8,
    idleMs: options.warmThreadIdleMs ?? 120_000,
    requestTimeoutMs,
    logger,
  });
  const durableThreads = options.durableThreads ?? false;
  const live =
    (options.continuity ?? true)
      ? createLiveThreads(
          {
            maxPerProcess: options.liveThreads ?? 32,
            idleMs: options.liveThreadIdleMs ?? 300_000,
            maxCharsPerProcess: options.liveThreadMaxChars ?? 16_000_000,
          },
          { requestTimeoutMs, logger, durableThreads },
        )
      : undefined;
  const liveThreadCounts = () => live?.counts() ?? { live: 0, continued: 0 };

  const unavailable = (e: unknown): never => {
    const why = e instanceof Error ? e.message : String(e);
    throw new GatewayError("backend_unavailable", `codex could not be started (${command}): ${why}`, {
      cause: e,
    });
  };
  const pendingToolRequests = { count: 0 };
  // Known once the sealed catalog is written, which every turn waits for before it starts.
  let contextWindows: ReadonlyMap<string, number> = new Map();
  void workspace.contextWindows.then((windows) => {
    contextWindows = windows;
  });
  // One context for every turn: the turn reads what it needs from it.
  const turnContext: TurnContext = {
    pool,
    threads,
    live,
    rawEvents: nativeTools,
    admission,
    logger,
    sealedParams: () =>
      workspace.sealed.then((p) => (durableThreads ? { ...p, ephemeral: false } : p), unavailable),
    durableThreads,
    allowRemoteImages: options.allowRemoteImages ?? false,
    requestTimeoutMs,
    startWaitMs: startTimeoutMs,
    turnTimeoutMs: options.turnTimeoutMs ?? 0,
    pendingToolRequests,
    stalledReaderMs: flow.stalledReaderMs,
    contextWindowOf: (model) => contextWindows.get(model),
    readRawMessages,
  };

  return {
    specificationVersion: "v1",
    name: "codex-app-server",
    get capabilities() {
      return { nativeTools: nativeTools() };
    },
    stream(request, { signal }) {
      return backendStream(() => planLimits.explainTurn(runCodexTurn(turnContext, request, signal), now));
    },
    async listModels() {
      const [models, windows] = await Promise.all([control.listModels(), workspace.contextWindows]);
      return models.map((m) => {
        const contextWindow = windows.get(m.id);
        return contextWindow === undefined ? m : { ...m, contextWindow };
      });
    },
    readiness(): BackendReadiness {
      const inFlight = admission.inFlight();
      const readySlots = pool.readySlots();
      const warm = threads.counts().ready;
      const live = liveThreadCounts().live;
      return {
        ready: readySlots > 0 && inFlight < admission.capacity,
        inFlight,
        queued: admission.queued(),
        capacity: admission.capacity,
        restarts: pool.restarts(),
        pendingToolRequests: pendingToolRequests.count,
        liveThreads: live,
        detail:
          readySlots > 0
            ? `${readySlots} app-server(s) ready${warm > 0 ? `, ${warm} warm thread(s)` : ""}${live > 0 ? `, ${live} live conversation thread(s)` : ""}`
            : pool.detail(),
        planLimits: planLimits.current(now()),
      };
    },
    pendingToolRequests: () => pendingToolRequests.count,
    heldNotificationBytes: () => pool.processes().reduce((sum, p) => sum + p.flow.held(), 0),
    warmThreads: () => threads.counts(),
    liveThreads: liveThreadCounts,
    checkAuth: control.checkAuth,
    async warmup() {
      await workspace.sealed.catch(unavailable);
      // A codex that cannot start (a bad CODEX_HOME, a broken binary) fails the check at once.
      await pool.firstStart();
      const lease = await pool.acquire(AbortSignal.timeout(startTimeoutMs), startTimeoutMs);
      lease.release();
    },
    beginShutdown() {
      void live?.close();
      threads.drain();
      pool.drain();
    },
    async close() {
      // Durable threads are deleted before the app-servers go; a codex that does not answer within
      // seconds leaves theirs on disk rather than holding the shutdown.
      const released = live?.close();
      if (durableThreads && released) await Promise.race([released, delay(5_000, undefined, { ref: false })]);
      threads.close();
      await pool.close();
      await workspace.remove();
    },
  };
};
