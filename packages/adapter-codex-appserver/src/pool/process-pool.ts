import { GatewayError } from "@proxy/core";
import type { Logger } from "../logger.js";
import { type AppServerProcess, describe } from "../transport/app-server-process.js";

export interface PoolLease {
  readonly process: AppServerProcess;
  release(): void;
}

export interface ProcessPool {
  /** The least-loaded initialized process; waits (up to `waitMs`) while every slot is (re)starting. */
  acquire(signal: AbortSignal, waitMs: number): Promise<PoolLease>;
  /** A lease on `proc` itself (where a live thread is), if it is still serving. */
  leaseProcess(proc: AppServerProcess): PoolLease | undefined;
  readySlots(): number;
  /** Resolves once a process is ready; rejects with the reason when every slot's first start failed. */
  firstStart(): Promise<void>;
  /** The processes serving now. */
  processes(): ReadonlyArray<AppServerProcess>;
  restarts(): number;
  /** Shutdown has begun: a process that exits from now on is not restarted. */
  drain(): void;
  /** Why no slot is ready, if none is. */
  detail(): string | undefined;
  close(): Promise<void>;
}

export interface ProcessPoolOptions {
  readonly size: number;
  readonly start: () => Promise<AppServerProcess>;
  readonly logger: Logger;
  readonly initialBackoffMs: number;
  /** The longest wait between restarts, however often a slot failed. */
  readonly maxBackoffMs: number;
  /** A process that lived this long resets the backoff. */
  readonly stableAfterMs?: number;
}

interface Slot {
  process: AppServerProcess | undefined;
  leases: number;
  failures: number;
  lastError: string | undefined;
}

/**
 * N long-lived app-servers, each under a supervisor loop: start → serve until exit → back off
 * exponentially → start again. Turns on a process that dies see its connection close (their
 * pending requests reject), so they end cleanly; new turns wait for the restart.
 */
export const createProcessPool = (options: ProcessPoolOptions): ProcessPool => {
  const { logger } = options;
  const slots: Slot[] = Array.from({ length: options.size }, () => ({
    process: undefined,
    leases: 0,
    failures: 0,
    lastError: undefined,
  }));
  const waiters = new Set<() => void>();
  const wakeTimers = new Set<() => void>();
  let restarts = 0;
  let closed = false;
  let draining = false;
  // A start-up check waits for the first attempts, not for the backoff after them.
  let firstAttemptsLeft = options.size;
  let settleFirstStart: { resolve(): void; reject(e: unknown): void } | undefined;
  const firstStart = new Promise<void>((resolve, reject) => {
    settleFirstStart = { resolve, reject };
  });
  firstStart.catch(() => undefined);
  const firstAttemptFailed = (e: unknown) => {
    if (--firstAttemptsLeft === 0) settleFirstStart?.reject(e);
  };

  const wakeWaiters = () => {
    for (const w of [...waiters]) w();
  };
  const sleep = (ms: number) =>
    new Promise<void>((resolve) => {
      const done = () => {
        clearTimeout(timer);
        wakeTimers.delete(done);
        resolve();
      };
      const timer = setTimeout(done, ms);
      wakeTimers.add(done);
    });

  const supervise = async (slot: Slot, index: number) => {
    for (let attempt = 0; !closed; attempt++) {
      let startedAt: number | undefined;
      try {
        const proc = await options.start();
        if (closed) {
          await proc.close();
          return;
        }
        slot.process = proc;
        slot.lastError = undefined;
        startedAt = Date.now();
        logger.info({ slot: index, pid: proc.pid }, "codex app-server ready");
        settleFirstStart?.resolve();
        wakeWaiters();
        const exit = await proc.exited;
        slot.process = undefined;
        if (closed) return;
        slot.lastError = `app-server exited (${describe(exit)})`;
        // A process that served a turn was healthy: its death starts the backoff afresh.
        if (proc.finishedTurns() > 0) slot.failures = 0;
        if (draining) {
          logger.info({ slot: index, pid: proc.pid, ...exit }, "codex app-server exited while draining");
          return;
        }
        logger.error({ slot: index, pid: proc.pid, ...exit }, "codex app-server died; restarting");
      } catch (e) {
        slot.lastError = `app-server failed to start: ${e instanceof Error ? e.message : String(e)}`;
        // An exit at start carries codex's own reason, a spawn failure its errno: a stack says nothing more.
        logger.error(
          { slot: index, reason: e instanceof Error ? e.message : String(e) },
          "codex app-server failed to start",
        );
        if (attempt === 0) firstAttemptFailed(e);
      }
      if (closed || draining) return;
      if (startedAt !== undefined && Date.now() - startedAt >= (options.stableAfterMs ?? 30_000))
        slot.failures = 0;
      slot.failures = Math.min(slot.failures + 1, 32);
      restarts++;
      const delayMs = Math.min(options.initialBackoffMs * 2 ** (slot.failures - 1), options.maxBackoffMs);
      logger.info({ slot: index, delayMs, failures: slot.failures }, "codex app-server restart scheduled");
      await sleep(delayMs);
    }
  };
  const loops = slots.map((slot, i) => supervise(slot, i));

  /** `a` is a worse pick than `b`: paused for a slow reader (its turns wait), else more leases. */
  const busier = (a: Slot, b: Slot) => {
    const pausedA = a.process?.flow.paused() === true;
    const pausedB = b.process?.flow.paused() === true;
    return pausedA !== pausedB ? pausedA : b.leases < a.leases;
  };
  const pick = (): Slot | undefined => {
    let best: Slot | undefined;
    for (const s of slots) {
      if (s.process?.isAlive() && (best === undefined || busier(best, s))) best = s;
    }
    return best;
  };
  const lease = (slot: Slot): PoolLease => {
    const proc = slot.process as AppServerProcess;
    slot.leases++;
    let done = false;
    return {
      process: proc,
      release: () => {
        if (done) return;
        done = true;
        slot.leases--;
      },
    };
  };
  const unavailable = (why: string) =>
    new GatewayError("backend_unavailable", `codex app-server unavailable: ${why}`, { retryAfterSeconds: 1 });

  return {
    acquire(signal, waitMs) {
      if (closed) return Promise.reject(unavailable("backend closed"));
      const ready = pick();
      if (ready) return Promise.resolve(lease(ready));
      return new Promise((resolve, reject) => {
        const finish = () => {
          waiters.delete(check);
          clearTimeout(timer);
          signal.removeEventListener("abort", onAbort);
        };
        const check = () => {
          const slot = pick();
          if (slot) {
            finish();
            resolve(lease(slot));
          } else if (closed) {
            finish();
            reject(unavailable("backend closed"));
          }
        };
        function onAbort() {
          finish();
          reject(new GatewayError("cancelled", "request cancelled while waiting for codex"));
        }
        const timer = setTimeout(() => {
          finish();
          reject(unavailable(slots.find((s) => s.lastError)?.lastError ?? "still starting"));
        }, waitMs);
        signal.addEventListener("abort", onAbort, { once: true });
        waiters.add(check);
      });
    },
    leaseProcess(proc) {
      const slot = slots.find((s) => s.process === proc);
      return slot && !closed && proc.isAlive() ? lease(slot) : undefined;
    },
    readySlots: () => slots.filter((s) => s.process?.isAlive()).length,
    firstStart: () => firstStart,
    processes: () => slots.flatMap((s) => (s.process?.isAlive() ? [s.process] : [])),
    restarts: () => restarts,
    drain() {
      draining = true;
    },
    detail: () => (pick() ? undefined : (slots.find((s) => s.lastError)?.lastError ?? "starting")),
    async close() {
      closed = true;
      for (const wake of [...wakeTimers]) wake();
      wakeWaiters();
      await Promise.all(slots.map((s) => s.process?.close()));
      await Promise.all(loops);
    },
  };
};
