import { isTerminalStatus } from "@proxy/core/gateway";
import { sseFrame } from "@proxy/http-surface";
import type { StoredState } from "./state.js";

const TERMINAL_EVENTS = new Set(["response.completed", "response.failed", "response.incomplete"]);

const typeOf = (event: unknown): unknown =>
  typeof event === "object" && event !== null ? (event as { type?: unknown }).type : undefined;

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/**
 * The stored events of a response after `after`, then, while its turn still runs (in this process
 * or another replica), the ones that turn appends, until its terminal event; one batch per read.
 */
export async function* replayStoredEvents(
  state: StoredState,
  owner: string,
  id: string,
  after: number,
): AsyncGenerator<ReadonlyArray<unknown>> {
  let seq = after;
  for (;;) {
    const events = await state.store.readEvents(owner, id, seq);
    const batch: unknown[] = [];
    for (const event of events) {
      seq = event.seq;
      batch.push(event.body);
      if (TERMINAL_EVENTS.has(typeOf(event.body) as string)) {
        yield batch;
        return;
      }
    }
    if (events.length > 0) {
      yield batch;
      continue;
    }
    const response = await state.store.getResponse(owner, id);
    if (response === undefined) return;
    if (isTerminalStatus(response.status)) {
      // The turn ended between the two reads: send what it appended last, then stop.
      const last = await state.store.readEvents(owner, id, seq);
      if (last.length > 0) yield last.map((event) => event.body);
      return;
    }
    await sleep(state.pollMs);
  }
}

/** A batch of stored events as SSE frames (named by their `type`), for one write. */
export const sseFrames = (batch: ReadonlyArray<unknown>): string => {
  let text = "";
  for (const event of batch) text += sseFrame(JSON.stringify(event), String(typeOf(event)));
  return text;
};
