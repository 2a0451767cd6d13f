import { isGatewayError } from "@proxy/core";
import type { Clock, StoredStatus } from "@proxy/core/gateway";
import type { ResponseObject } from "../response/response-object.js";
import type { ResponsesEvent } from "../response/text-delta-event.js";
import type { PreparedTurn } from "./prepare.js";
import type { StoredState } from "./state.js";

/** Header on a response that was answered but not stored (too large for the store's limit). */
export const NOT_STORED_HEADER = "x-proxy-store-warning";

/**
 * Keeps the events of one non-background turn while they are answered, then stores the response
 * (items, events, conversation items) in one go. Past the size limit it stops keeping events and
 * `save` reports the response as not stored.
 */
export const createRecorder = (state: StoredState, prepared: PreparedTurn, clock: Clock) => {
  const events: ResponsesEvent[] = [];
  // The input is stored with the response: it counts against the same limit.
  let bytes = JSON.stringify(prepared.input).length;
  let tooLarge = bytes > state.maxResponseBytes;
  return {
    /** Keeps one event of the turn (until the events outgrow the limit). */
    keep(event: ResponsesEvent): void {
      if (tooLarge) return;
      bytes += JSON.stringify(event).length;
      events.push(event);
      if (bytes > state.maxResponseBytes) {
        tooLarge = true;
        events.length = 0;
      }
    },
    /** Stores the finished response; undefined when stored, else the warning to send. */
    async save(response: ResponseObject): Promise<string | undefined> {
      const now = clock.now();
      const output = response.output.map((item) => ({ id: item.id, body: item }));
      let warning: string | undefined;
      if (!prepared.store) warning = undefined;
      else if (tooLarge || bytes + JSON.stringify(response).length > state.maxResponseBytes)
        warning = `response not stored: larger than ${state.maxResponseBytes} bytes`;
      else
        await state.store.createResponse({
          id: response.id,
          owner: prepared.owner,
          previousResponseId: prepared.previousResponseId,
          conversationId: prepared.conversationId,
          status: response.status as StoredStatus,
          background: false,
          createdAt: now,
          expiresAt: now + state.ttlMs,
          body: response,
          input: prepared.input,
          output,
          events,
        });
      if (warning === undefined && prepared.store)
        state.items.remember(prepared.owner, [...prepared.input, ...output]);
      // The conversation keeps the turn even when the response itself is not stored.
      if (prepared.conversationId !== null)
        try {
          await state.store.appendConversationItems(prepared.owner, prepared.conversationId, [
            ...prepared.input,
            ...output,
          ]);
        } catch (error) {
          // The turn was answered: a conversation that is full is reported, not the turn failed.
          if (!(isGatewayError(error) && error.kind === "request_too_large")) throw error;
          warning = warning === undefined ? error.message : `${warning}; ${error.message}`;
        }
      return warning;
    },
  };
};
