import type { ResponsesEvent } from "../response/text-delta-event.js";

/** The events of a background turn running in this process, followed by its streaming clients. */
export interface EventLog {
  readonly events: ResponsesEvent[];
  push(batch: ReadonlyArray<ResponsesEvent>): void;
  end(): void;
  /**
   * Events after sequence number `after`, live until the turn ends, as batches (everything appended
   * since the reader last looked); a reader may stop at any time.
   */
  follow(after: number): AsyncGenerator<ReadonlyArray<ResponsesEvent>>;
}

export const createEventLog = (): EventLog => {
  const events: ResponsesEvent[] = [];
  let ended = false;
  let waiting: Array<() => void> = [];
  const wake = () => {
    const woken = waiting;
    waiting = [];
    for (const resolve of woken) resolve();
  };
  return {
    events,
    push(batch) {
      if (batch.length === 0) return;
      events.push(...batch);
      wake();
    },
    end() {
      ended = true;
      wake();
    },
    async *follow(after) {
      // sequence_number counts from 0 without gaps, so it is also the index in `events`.
      let next = after + 1;
      for (;;) {
        if (next < events.length) {
          const batch = events.slice(next);
          next = events.length;
          yield batch;
          continue;
        }
        if (ended) return;
        await new Promise<void>((resolve) => waiting.push(resolve));
      }
    },
  };
};
