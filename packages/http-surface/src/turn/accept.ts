import { type AssistantEvent, GatewayError, toGatewayError } from "@proxy/core";
import { type AssistantBatch, flattenBatches } from "@proxy/core/gateway";
import { type TerminalWatcher, terminatedBatches } from "./terminated.js";

/** The backend accepted the turn, or refused it before the first byte (an HTTP status). */
export type TurnAcceptance =
  | {
      readonly accepted: true;
      readonly batches: AsyncIterable<AssistantBatch>;
      readonly events: AsyncIterable<AssistantEvent>;
    }
  | { readonly accepted: false; readonly error: GatewayError };

/** The turn's first batch; a turn that ends or throws before it is an error batch (never rejects). */
export const readFirstBatch = (iterator: AsyncIterator<AssistantBatch>): Promise<AssistantBatch> =>
  iterator.next().then(
    (r): AssistantBatch =>
      r.done === true
        ? [{ type: "error", error: new GatewayError("backend_error", "The turn ended before it started.") }]
        : r.value,
    (e: unknown): AssistantBatch => [{ type: "error", error: toGatewayError(e) }],
  );

/**
 * Tells accepted from refused by the first batch: an error first is a refusal (the turn is closed);
 * otherwise the batches after `stream-start`, ending in exactly one terminal event the watcher sees,
 * and cut with an error past `maxAnswerChars` of output.
 */
export const acceptOrRefuse = async (
  iterator: AsyncIterator<AssistantBatch>,
  first: AssistantBatch,
  watcher: TerminalWatcher,
  maxAnswerChars: number,
): Promise<TurnAcceptance> => {
  const head = first[0];
  if (head?.type === "error") {
    await iterator.return?.();
    return { accepted: false, error: head.error };
  }
  const rest = head?.type === "stream-start" ? first.slice(1) : first;
  const batches = {
    [Symbol.asyncIterator]: () => terminatedBatches(iterator, rest, watcher, maxAnswerChars),
  };
  return { accepted: true, batches, events: flattenBatches(batches) };
};
