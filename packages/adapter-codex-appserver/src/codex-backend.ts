import { mkdir, mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  type BackendReadiness,
  backendStream,
  createAdmissionGate,
  GatewayError,
  type ModelInfo,
  type TextBackend,
} from "@proxy/core";
import { resolveCodexCommand } from "./codex-binary.js";
import { type Logger, silentLogger } from "./logger.js";
import { mapRpcError } from "./map-codex-error.js";
import { createProcessPool } from "./pool/process-pool.js";
import { createThreadSource, type WarmThreadCounts } from "./pool/warm-threads.js";
import { createPlanLimits } from "./rate-limits.js";
import { readProviderEnvKeys } from "./sealing/provider-env-keys.js";
import { writeSealedCatalog } from "./sealing/sealed-catalog.js";
import { sealedAppServerArgs, sealedEnvironment } from "./sealing/sealed-environment.js";
import { sealedThreadParams } from "./sealing/sealed-thread-config.js";
import { createLiveThreads, type LiveThreadCounts } from "./threads/live-threads.js";
import { type Spawn, startAppServer } from "./transport/app-server-process.js";
import { runCodexTurn } from "./turn/codex-turn.js";

export interface CodexBackendOptions {
  /** The codex executable (or a `.js` entry run with this Node). Default: `CODEX_BIN`, else the pinned `@openai/codex`. */
  readonly codexBin?: string | undefined;
  /** Where the child's environment is taken from (default `process.env`); only allow-listed names pass. */
  readonly env?: NodeJS.ProcessEnv | undefined;
  /** Variable names passed to codex besides the built-in allow-list (e.g. a custom provider's `env_key`). */
  readonly passEnv?: ReadonlyArray<string> | undefined;
  readonly logger?: Logger | undefined;
  /** Long-lived app-server processes (default 1). */
  readonly poolSize?: number | undefined;
  /** Turns running at once across the pool (default 16). */
  readonly maxInFlight?: number | undefined;
  /** Turns waiting for a slot before requests are refused as `overloaded` (default 64). */
  readonly maxQueue?: number | undefined;
  /** Per JSON-RPC request to the app-server (default 30 s). */
  readonly requestTimeoutMs?: number | undefined;
  /** Handshake limit, and how long a request waits for a (re)starting app-server (default 30 s). */
  readonly startTimeoutMs?: number | undefined;
  /** Whole-turn limit in ms; 0 (default) leaves it to codex's own stream idle timeout. */
  readonly turnTimeoutMs?: number | undefined;
  /**
   * Bytes of backend events one turn may hold for a client that stopped reading, then it fails
   * (default 2 MiB: a few MB of memory per paused stream, whatever the size of its deltas).
   */
  readonly maxPendingNotificationBytes?: number | undefined;
  /** `thread_unload_delay_secs` for the app-server: how soon finished threads are freed (default 5). */
  readonly threadUnloadDelaySecs?: number | undefined;
  /**
   * Threads started ahead of time per thread config (model, instructions, tools) and app-server,
   * for the configs turns used last, so a turn skips its `thread/start` (default 1; 0 = off).
   */
  readonly warmThreads?: number | undefined;
  /** Thread configs kept warm per app-server (default 8); the least recently used is dropped first. */
  readonly warmThreadConfigs?: number | undefined;
  /** A config no turn used for this long has its warm threads freed (default 120 s). */
  readonly warmThreadIdleMs?: number | undefined;
  /**
   * Conversation continuity: keep a request's codex thread alive and run the conversation's next
   * request on it with only its new items (one `prompt_cache_key` per conversation); default true.
   * False = a fresh thread per request.
   */
  readonly continuity?: boolean | undefined;
  /** Live threads kept per app-server (default 32); the least recently used is let go first. */
  readonly liveThreads?: number | undefined;
  /** A live thread no request continued for this long is let go (default 300 s). */
  readonly liveThreadIdleMs?: number | undefined;
  /** Conversation chars kept alive per app-server over its live threads (default 16,000,000). */
  readonly liveThreadMaxChars?: number | undefined;
  /** Pass non-`data:` image URLs through to the model provider instead of rejecting them. */
  readonly allowRemoteImages?: boolean | undefined;
  /** Restart delay: doubles from `initial` (250 ms) per failure up to `max` (5 s); a process that served a turn resets it. */
  readonly restartBackoffMs?: { readonly initial: number; readonly max: number } | undefined;
  readonly shutdownGraceMs?: { readonly stdin: number; readonly term: number } | undefined;
  /** Max chars of one stdout line; longer lines are dropped and logged (default 16 MiB; 16× that for final turn/item notifications). */
  readonly maxLineLength?: number | undefined;
  /** Told how every JSON-RPC request to an app-server ended: method and `ok` / error code / `timeout`. */
  readonly onRpcResult?: ((method: string, outcome: string) => void) | undefined;
  /** Offer native tool mode (dynamic tools via codex's experimental API); default true. */
  readonly nativeTools?: boolean | undefined;
  /** `clientInfo.name`: becomes codex's `originator` header upstream (default "codex_tool_gateway"). */
  readonly clientName?: string | undefined;
  readonly spawn?: Spawn | undefined;
  /** Wall clock for plan reset times (default `Date.now`). */
  readonly now?: (() => number) | undefined;
}

export interface CodexAuthStatus {
  /** False when codex needs an OpenAI login and has none: turns will fail until `codex login`. */
  readonly authenticated: boolean;
  readonly requiresOpenaiAuth: boolean;
  /** `chatgpt`, `apiKey`, … when logged in. */
  readonly accountType?: string | undefined;
  readonly detail: string;
}

export type CodexBackend = TextBackend & {
  /** `item/tool/call` requests of native turns not yet answered (returns to 0 when turns end). */
  pendingToolRequests(): number;
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

  // The sealed catalog, the throwaway cwd and the child's empty PATH directory live in one
  // private (0700) temp dir per backend.
  const privateDir = mkdtemp(join(tmpdir(), "codex-backend-"));
  const childEnv = privateDir.then(async (dir) => {
    const providerKeys = await readProviderEnvKeys(source, (path, err) =>
      logger.warn({ err, path }, "codex: config.toml could not be read for its providers' env_key"),
    );
    if (providerKeys.length > 0)
      logger.info({ names: providerKeys }, "codex: passing its providers' env_key variables");
    return sealedEnvironment(source, [...(options.passEnv ?? []), ...providerKeys], join(dir, "empty-path"));
  });
  const sealed = privateDir.then(async (dir) => {
    const cwd = join(dir, "empty-cwd");
    await mkdir(cwd, { mode: 0o700 });
    await mkdir(join(dir, "empty-path"), { mode: 0o700 });
    const catalog = await writeSealedCatalog({ command, env: await childEnv, dir });
    logger.info({ catalog, command }, "codex: sealed model catalog written");
    return sealedThreadParams(catalog, cwd) as unknown as Record<string, unknown>;
  });
  sealed.catch((err) => logger.error({ err, command }, "codex: could not build the sealed model catalog"));

  // Native tools need the experimental API; an app-server that refuses it (a future codex) turns
  // native mode off for the whole backend, said once, and `auto` falls back to prompt mode.
  let nativeTools = options.nativeTools ?? true;
  const pendingToolRequests = { count: 0 };
  const planLimits = createPlanLimits();
  const now = options.now ?? Date.now;

  const pool = createProcessPool({
    size: Math.max(1, options.poolSize ?? 1),
    logger,
    initialBackoffMs: options.restartBackoffMs?.initial ?? 250,
    maxBackoffMs: options.restartBackoffMs?.max ?? 5_000,
    start: async () => {
      // The app-server reads no catalog (threads name it), so it starts while `codex debug models`
      // writes the seal; the process is handed out only once the seal exists. Cold start to ready
      // was the two codex start-ups one after the other.
      const starting = startAppServer({
        command,
        args: [
          "app-server",
          ...sealedAppServerArgs(),
          "-c",
          `thread_unload_delay_secs=${options.threadUnloadDelaySecs ?? 5}`,
        ],
        env: await childEnv,
        logger,
        spawn: options.spawn,
        clientName: options.clientName ?? "codex_tool_gateway",
        clientVersion: "0.1.0",
        experimentalApi: nativeTools,
        startTimeoutMs,
        maxLineLength: options.maxLineLength,
        onRpcResult: options.onRpcResult,
        onAccountNotification: planLimits.observe,
        stdinGraceMs: options.shutdownGraceMs?.stdin,
        termGraceMs: options.shutdownGraceMs?.term,
      });
      starting.catch(() => undefined); // its failure is reported below, once the seal is settled
      try {
        await sealed; // never serve a turn before the seal exists
      } catch (e) {
        await starting.then((proc) => proc.close()).catch(() => undefined);
        throw e;
      }
      const proc = await starting;
      if (nativeTools && !proc.experimentalApi) {
        nativeTools = false;
        logger.warn(
          { command },
          "codex app-server refused the experimental API: native tool mode is off (auto uses prompt mode; native requests fail)",
        );
      }
      return proc;
    },
  });

  const threads = createThreadSource({
    perConfig: options.warmThreads ?? 1,
    maxConfigs: options.warmThreadConfigs ?? 8,
    idleMs: options.warmThreadIdleMs ?? 120_000,
    requestTimeoutMs,
    logger,
  });

  const live =
    (options.continuity ?? true)
      ? createLiveThreads(
          {
            maxPerProcess: options.liveThreads ?? 32,
            idleMs: options.liveThreadIdleMs ?? 300_000,
            maxCharsPerProcess: options.liveThreadMaxChars ?? 16_000_000,
          },
          { requestTimeoutMs, logger },
        )
      : undefined;

  const liveThreadCounts = () => live?.counts() ?? { live: 0, continued: 0 };

  const unavailable = (e: unknown): never => {
    const why = e instanceof Error ? e.message : String(e);
    throw new GatewayError("backend_unavailable", `codex could not be started (${command}): ${why}`, {
      cause: e,
    });
  };

  /** Runs one control request on any ready app-server. */
  const control = async <T>(method: string, params: unknown): Promise<T> => {
    const lease = await pool.acquire(AbortSignal.timeout(startTimeoutMs), startTimeoutMs);
    try {
      return await lease.process.connection.request<T>(method, params, { timeoutMs: requestTimeoutMs });
    } catch (e) {
      throw mapRpcError(e, method);
    } finally {
      lease.release();
    }
  };

  return {
    specificationVersion: "v1",
    name: "codex-app-server",
    get capabilities() {
      return { nativeTools };
    },
    stream(request, { signal }) {
      return backendStream(() =>
        planLimits.explainTurn(
          runCodexTurn(
            {
              pool,
              threads,
              live,
              rawEvents: () => nativeTools,
              admission,
              logger,
              sealedParams: () => sealed.catch(unavailable),
              allowRemoteImages: options.allowRemoteImages ?? false,
              requestTimeoutMs,
              startWaitMs: startTimeoutMs,
              turnTimeoutMs: options.turnTimeoutMs ?? 0,
              pendingToolRequests,
              maxPendingNotificationBytes: options.maxPendingNotificationBytes ?? 2 * 1024 * 1024,
            },
            request,
            signal,
          ),
          now,
        ),
      );
    },
    async listModels() {
      const models: ModelInfo[] = [];
      let cursor: string | null = null;
      for (let page = 0; page < 20; page++) {
        type Page = { data?: Array<Record<string, unknown>>; nextCursor?: string | null };
        const result: Page = await control<Page>("model/list", cursor ? { cursor } : {});
        for (const m of result.data ?? []) {
          if (m.hidden === true || typeof m.id !== "string") continue;
          const description = typeof m.description === "string" ? m.description : undefined;
          models.push({ id: m.id, description, ownedBy: "codex" });
        }
        cursor = result.nextCursor ?? null;
        if (!cursor) break;
      }
      return models;
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
        detail:
          readySlots > 0
            ? `${readySlots} app-server(s) ready${warm > 0 ? `, ${warm} warm thread(s)` : ""}${live > 0 ? `, ${live} live conversation thread(s)` : ""}`
            : pool.detail(),
        planLimits: planLimits.current(now()),
      };
    },
    pendingToolRequests: () => pendingToolRequests.count,
    warmThreads: () => threads.counts(),
    liveThreads: liveThreadCounts,
    async checkAuth() {
      type Account = { account?: { type?: string } | null; requiresOpenaiAuth?: boolean };
      const result = await control<Account>("account/read", { refreshToken: false });
      const requiresOpenaiAuth = result.requiresOpenaiAuth === true;
      const accountType = result.account?.type;
      const authenticated = accountType !== undefined || !requiresOpenaiAuth;
      const detail = authenticated
        ? accountType
          ? `codex is logged in (${accountType})`
          : "the configured model provider needs no OpenAI login"
        : "codex has no credentials: run `codex login` on the gateway host (same user and CODEX_HOME)";
      return { authenticated, requiresOpenaiAuth, accountType, detail };
    },
    async warmup() {
      await sealed.catch(unavailable);
      const lease = await pool.acquire(AbortSignal.timeout(startTimeoutMs), startTimeoutMs);
      lease.release();
    },
    beginShutdown() {
      live?.close();
      threads.drain();
      pool.drain();
    },
    async close() {
      live?.close();
      threads.close();
      await pool.close();
      await rm(await privateDir, { recursive: true, force: true });
    },
  };
};
