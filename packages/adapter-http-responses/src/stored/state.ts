import type { ResponseStore } from "@proxy/core/gateway";
import type { EventLog } from "./event-log.js";
import { createItemCache, type ItemCache } from "./item-cache.js";

/** Server-side state for the Responses and Conversations APIs; absent = the stateless gateway. */
export interface StoredStateOptions {
  readonly store: ResponseStore;
  /** How long stored responses and conversations are kept. */
  readonly ttlMs: number;
  /** A response whose JSON (with its events) is larger is answered but not stored. */
  readonly maxResponseBytes: number;
  /** `conversation` naming an unknown id creates it (clients written for older proxies). */
  readonly autocreateConversations?: boolean | undefined;
  /** This process, as the holder of background-turn leases (unique per replica). */
  readonly replicaId: string;
  /** Lease of a background turn (at most 30 s); renewed every `pollMs` while it runs. */
  readonly leaseMs?: number | undefined;
  /** How often background turns flush events and renew leases, and followers poll. */
  readonly pollMs?: number | undefined;
  /** Where this process's background turns are registered; its owner awaits them at shutdown. */
  readonly running?: Map<string, RunningTurn> | undefined;
}

/** A background turn running in this process. */
export interface RunningTurn {
  readonly log: EventLog;
  /** Interrupts the backend turn; the response ends `cancelled`. */
  cancel(): void;
  /** Settles once the outcome is stored. */
  readonly done: Promise<void>;
}

export interface StoredState {
  /** Background turns of this process by response id (per app instance, never shared). */
  readonly running: Map<string, RunningTurn>;
  /** Read-through cache of stored items for `item_reference` (per app instance, owner-keyed). */
  readonly items: ItemCache;
  readonly store: ResponseStore;
  readonly ttlMs: number;
  readonly maxResponseBytes: number;
  readonly autocreateConversations: boolean;
  readonly replicaId: string;
  readonly leaseMs: number;
  readonly pollMs: number;
}

export const MAX_LEASE_MS = 30_000;

export const resolveState = (options: StoredStateOptions): StoredState => ({
  running: options.running ?? new Map(),
  items: createItemCache(options.store),
  store: options.store,
  ttlMs: options.ttlMs,
  maxResponseBytes: options.maxResponseBytes,
  autocreateConversations: options.autocreateConversations ?? false,
  replicaId: options.replicaId,
  leaseMs: Math.min(options.leaseMs ?? MAX_LEASE_MS, MAX_LEASE_MS),
  pollMs: options.pollMs ?? 500,
});

/**
 * Waits until every background turn registered in `running` has stored its outcome, or `ms` pass.
 * Returns how many were still unsettled (their lease then runs out and a reaper fails them).
 */
export const settleRunningTurns = async (
  running: ReadonlyMap<string, RunningTurn>,
  ms: number,
): Promise<number> => {
  const pending = [...running.values()].map((turn) => turn.done);
  if (pending.length === 0) return 0;
  let timer: ReturnType<typeof setTimeout> | undefined;
  await Promise.race([
    Promise.all(pending),
    new Promise<void>((resolve) => {
      timer = setTimeout(resolve, ms);
    }),
  ]);
  clearTimeout(timer);
  return running.size;
};
