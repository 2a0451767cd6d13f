import { isTerminalStatus } from "@proxy/core";
import type { StoredState } from "./state.js";

const TERMINAL_EVENTS = new Set(["response.completed", "response.failed", "response.incomplete"]);

const typeOf = (event: unknown): unknown =>
  typeof event === "object" && event !== null ? (event as { type?: unknown }).type : undefined;

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/**
 * The stored events of a response after `after`, then, while its turn still runs (in this process
 * or another replica), the ones that turn appends, until its terminal event.
 */
export async function* replayStoredEvents(
  state: StoredState,
  owner: string,
  id: string,
  after: number,
): AsyncGenerator<unknown> {
  let seq = after;
  for (;;) {
    const events = await state.store.readEvents(owner, id, seq);
    for (const event of events) {
      seq = event.seq;
      yield event.body;
      if (TERMINAL_EVENTS.has(typeOf(event.body) as string)) return;
    }
    if (events.length > 0) continue;
    const response = await state.store.getResponse(owner, id);
    if (response === undefined) return;
    if (isTerminalStatus(response.status)) {
      // The turn ended between the two reads: send what it appended last, then stop.
      for (const event of await state.store.readEvents(owner, id, seq)) yield event.body;
      return;
    }
    await sleep(state.pollMs);
  }
}
