import type { ResponsesEvent } from "../response/encoder.js";

/** The events of a background turn running in this process, followed by its streaming clients. */
export interface EventLog {
  readonly events: ResponsesEvent[];
  push(batch: ReadonlyArray<ResponsesEvent>): void;
  end(): void;
  /** Events after sequence number `after`, live until the turn ends; a reader may stop at any time. */
  follow(after: number): AsyncGenerator<ResponsesEvent>;
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
        while (next < events.length) yield events[next++] as ResponsesEvent;
        if (ended) return;
        await new Promise<void>((resolve) => waiting.push(resolve));
      }
    },
  };
};
