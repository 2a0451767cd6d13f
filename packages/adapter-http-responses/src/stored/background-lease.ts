import type { Clock } from "@proxy/core/gateway";
import type { ResponsesEvent } from "../response/text-delta-event.js";
import type { EventLog } from "./event-log.js";
import type { StoredState } from "./state.js";

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

export interface LeaseOptions {
  readonly id: string;
  readonly state: StoredState;
  readonly clock: Clock;
  readonly log: EventLog;
  /** Events already in the store (the queued ones). */
  readonly storedEvents: number;
  /** The lease was lost or a cancel was requested (on any replica). */
  readonly onCancel: () => void;
}

/**
 * The heartbeat of a background turn held by this process: every `pollMs` its new events go to
 * the store and its lease is renewed; a cancel requested on any replica, or a lost lease, is seen
 * at the next renewal. Never overlaps itself.
 */
export class LeaseKeeper {
  private readonly options: LeaseOptions;
  private flushed: number;
  private ended = false;
  private readonly beating: Promise<void>;

  constructor(options: LeaseOptions) {
    this.options = options;
    this.flushed = options.storedEvents;
    this.beating = this.beat();
  }

  /** Stops the heartbeat; settles once a renewal under way is over. */
  stop(): Promise<void> {
    this.ended = true;
    return this.beating;
  }

  /** The log's events not in the store yet, from their sequence number (once stopped: the last ones). */
  unflushed(): { fromSeq: number; events: ResponsesEvent[] } {
    return { fromSeq: this.flushed, events: this.options.log.events.slice(this.flushed) };
  }

  private async flush(): Promise<void> {
    const { id, state, log } = this.options;
    const pending = log.events.slice(this.flushed);
    if (pending.length === 0) return;
    await state.store.appendEvents(id, this.flushed, pending);
    this.flushed += pending.length;
  }

  private async beat(): Promise<void> {
    const { id, state, clock, onCancel } = this.options;
    while (!this.ended) {
      await sleep(state.pollMs);
      if (this.ended) return;
      try {
        await this.flush();
        const lease = await state.store.renewLease(id, state.replicaId, clock.now() + state.leaseMs);
        if (lease === undefined || lease.cancelRequested) onCancel();
      } catch {
        // The store is unreachable for now: keep the turn; the lease holds up to leaseMs.
      }
    }
  }
}
