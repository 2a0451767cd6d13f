import { createHash } from "node:crypto";
import type { Logger } from "../logger.js";
import { freeThread } from "../threads/free-thread.js";
import type { AppServerProcess } from "../transport/app-server-process.js";

export interface ThreadStartResult {
  readonly thread: { readonly id: string };
  readonly model?: string;
}

/** A thread for one turn, and how to replace it. */
export interface OpenedThread {
  readonly started: Promise<ThreadStartResult>;
  /** True when it was started before the turn asked for it. */
  readonly warm: boolean;
  /** Tops the warm set for these params back up, in the background (call once the turn is over). */
  refill(): void;
}

export interface WarmThreadCounts {
  /** Started and waiting for a turn. */
  readonly ready: number;
  /** `thread/start` sent, not yet answered. */
  readonly starting: number;
  /** Turns that got a warm thread, since the backend started. */
  readonly handedOut: number;
}

export interface ThreadSource {
  /**
   * A warm thread started with exactly `params` on `proc` for the same `partition` (the caller; each
   * thread is handed out once), else a new one.
   */
  open(proc: AppServerProcess, params: Record<string, unknown>, partition?: string): OpenedThread;
  counts(): WarmThreadCounts;
  /** Shutdown has begun: threads already warm are still handed out, no more are started. */
  drain(): void;
  /** Stop, free the warm threads and the sweep timer. */
  close(): void;
}

export interface ThreadSourceOptions {
  /** Warm threads kept per thread config and app-server; 0 = every turn starts its own. */
  readonly perConfig: number;
  /** Distinct thread configs kept warm per app-server (least recently used dropped first). */
  readonly maxConfigs: number;
  /** Configs remembered per app-server (warm or not) to notice one that comes back. */
  readonly maxRemembered?: number;
  /** A config no turn used for this long has its warm threads freed. */
  readonly idleMs: number;
  readonly requestTimeoutMs: number;
  readonly logger: Logger;
}

interface Warm {
  readonly started: Promise<ThreadStartResult>;
  /** Started durable (`ephemeral: false`): deleted when freed. */
  readonly durable: boolean;
  threadId: string | undefined;
}
interface ConfigEntry {
  readonly warm: Warm[];
  /** Turns that ran with this config (warming starts with the second). */
  uses: number;
  lastUsedAt: number;
}

/**
 * Pre-started threads, so a turn skips its `thread/start` round trip. A thread's config (sealed
 * params, model, instructions, native tools) is fixed at `thread/start`, so a warm thread is keyed
 * by its exact params and serves only a turn that would have started the very same thread; it is
 * handed out once and never reused (its turn unsubscribes it), so nothing of one request reaches
 * another. Configs are kept per caller (the request's partition): another caller's identical prompt
 * neither takes nor warms a thread for this one, so a warm start's speed tells nobody what others sent. A config is warmed from its second turn on: one seen once (a prompt that embeds the
 * time, say) never costs a thread that no turn takes. Warm threads belong to one app-server: when it
 * exits they are forgotten.
 */
export const createThreadSource = (options: ThreadSourceOptions): ThreadSource => {
  const { logger } = options;
  const byProcess = new Map<AppServerProcess, Map<string, ConfigEntry>>();
  let handedOut = 0;
  let stopped = options.perConfig <= 0;

  const startThread = (proc: AppServerProcess, params: Record<string, unknown>) =>
    proc.connection.request<ThreadStartResult>("thread/start", params, {
      timeoutMs: options.requestTimeoutMs,
    });
  const free = (proc: AppServerProcess, warm: Warm) => {
    void warm.started
      .then((r) => freeThread(proc.connection, r.thread.id, warm.durable, options.requestTimeoutMs))
      .catch(() => {});
  };
  const freeEntry = (proc: AppServerProcess, entry: ConfigEntry) => {
    for (const warm of entry.warm.splice(0)) free(proc, warm);
  };
  const configsOf = (proc: AppServerProcess): Map<string, ConfigEntry> => {
    let configs = byProcess.get(proc);
    if (configs === undefined) {
      configs = new Map();
      byProcess.set(proc, configs);
      // Its threads died with it; a restarted process starts with none.
      proc.onExit(() => byProcess.delete(proc));
    }
    return configs;
  };

  const refill = (proc: AppServerProcess, key: string, params: Record<string, unknown>) => {
    if (stopped || !proc.isAlive()) return;
    const configs = configsOf(proc);
    let entry = configs.get(key);
    if (entry) configs.delete(key); // re-inserted last: the map's order is least recently used first
    entry ??= { warm: [], uses: 0, lastUsedAt: 0 };
    entry.uses++;
    entry.lastUsedAt = Date.now();
    configs.set(key, entry);
    if (entry.uses < 2) {
      for (const [oldKey, old] of configs) {
        if (configs.size <= (options.maxRemembered ?? 64)) break;
        configs.delete(oldKey);
        freeEntry(proc, old);
      }
      return;
    }
    let warmConfigs = 0;
    for (const e of configs.values()) if (e.warm.length > 0 || e === entry) warmConfigs++;
    for (const old of configs.values()) {
      if (warmConfigs <= options.maxConfigs) break;
      if (old === entry || old.warm.length === 0) continue;
      freeEntry(proc, old);
      warmConfigs--;
    }
    const current = entry;
    while (current.warm.length < options.perConfig) {
      const warm: Warm = {
        started: startThread(proc, params),
        durable: params.ephemeral === false,
        threadId: undefined,
      };
      current.warm.push(warm);
      warm.started.then(
        (r) => {
          warm.threadId = r.thread.id;
        },
        (err: unknown) => {
          // Never handed out once failed; the next turn of this config starts its own.
          const i = current.warm.indexOf(warm);
          if (i !== -1) current.warm.splice(i, 1);
          logger.debug({ err }, "codex: a warm thread failed to start");
        },
      );
    }
  };

  const sweep = () => {
    const before = Date.now() - options.idleMs;
    for (const [proc, configs] of byProcess)
      for (const [key, entry] of configs)
        if (entry.lastUsedAt < before) {
          configs.delete(key);
          freeEntry(proc, entry);
        }
  };
  const sweeper = stopped ? undefined : setInterval(sweep, Math.max(1_000, options.idleMs / 2));
  sweeper?.unref();

  const stop = () => {
    stopped = true;
    if (sweeper) clearInterval(sweeper);
  };

  return {
    open(proc, params, partition = "") {
      // A digest, so remembering a config costs no copy of its (possibly long) instructions.
      const key = createHash("sha256")
        .update(JSON.stringify([partition, params]))
        .digest("base64");
      const entry = byProcess.get(proc)?.get(key);
      const warm = entry?.warm.shift();
      if (entry) entry.lastUsedAt = Date.now();
      if (warm) handedOut++;
      return {
        // A warm start that fails after it was handed out fails the turn, as its own start would
        // have: on the same app-server a new start meets the same dead process, error or stall.
        started: warm ? warm.started : startThread(proc, params),
        warm: warm !== undefined,
        refill: () => refill(proc, key, params),
      };
    },
    counts() {
      let ready = 0;
      let starting = 0;
      for (const configs of byProcess.values())
        for (const entry of configs.values())
          for (const warm of entry.warm) {
            if (warm.threadId === undefined) starting++;
            else ready++;
          }
      return { ready, starting, handedOut };
    },
    drain: stop,
    close() {
      stop();
      for (const [proc, configs] of byProcess) for (const entry of configs.values()) freeEntry(proc, entry);
      byProcess.clear();
    },
  };
};
