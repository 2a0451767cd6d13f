import { type AssistantEvent, GatewayError, toGatewayError } from "@proxy/core";
import type { AssistantBatch } from "@proxy/core/gateway";

/** The one error for a turn that ended with neither a finish nor an error (a broken backend). */
export const unfinishedTurn = (): GatewayError =>
  new GatewayError("backend_error", "The turn ended without a finish.");

/** What the session learns from the turn's terminal event. */
export interface TerminalWatcher {
  /** The turn ended with this event (`finish` or `error`). */
  ended(event: AssistantEvent): GatewayError | undefined;
}

const isTerminal = (event: AssistantEvent): boolean => event.type === "finish" || event.type === "error";

/** Characters of output an event adds to an answer that is held whole (text, reasoning, arguments). */
const outputChars = (batch: AssistantBatch): number => {
  let n = 0;
  for (const event of batch)
    if (event.type === "text-delta" || event.type === "reasoning-delta" || event.type === "tool-call-delta")
      n += event.delta.length;
  return n;
};

/** The error of an answer held whole (non-streaming, background) that outgrew its limit. */
export const answerTooLarge = (maxChars: number): GatewayError =>
  new GatewayError(
    "backend_error",
    `The answer exceeded ${maxChars} characters, the most an answer held whole may have (PROXY_MAX_ANSWER_CHARS); ask for it with stream: true.`,
    { code: "answer_too_large" },
  );

/**
 * The turn's batches after `stream-start`, ending in exactly one terminal event: a batch is cut
 * after its first `finish`/`error`, a thrown failure becomes an `error`, a turn that just stops gets
 * `unfinishedTurn`. `head` is the rest of the first batch (already read to tell accepted from refused),
 * yielded even when empty so a surface writes its opening frames at once.
 */
export async function* terminatedBatches(
  iterator: AsyncIterator<AssistantBatch>,
  head: AssistantBatch,
  watcher: TerminalWatcher,
  /** The answer is held whole: past this many characters of output it ends in an error. */
  maxAnswerChars = Number.POSITIVE_INFINITY,
): AsyncGenerator<AssistantBatch> {
  let error: GatewayError | undefined;
  let held = 0;
  try {
    let batch: AssistantBatch | undefined = head;
    for (;;) {
      if (batch !== undefined && Number.isFinite(maxAnswerChars)) {
        held += outputChars(batch);
        if (held > maxAnswerChars) {
          const tooLarge = answerTooLarge(maxAnswerChars);
          error = watcher.ended({ type: "error", error: tooLarge });
          yield [{ type: "error", error: error ?? tooLarge }];
          return;
        }
      }
      if (batch !== undefined) {
        let end = -1;
        for (let k = 0; k < batch.length && end === -1; k += 1)
          if (isTerminal(batch[k] as AssistantEvent)) end = k;
        if (end !== -1) {
          const last = batch[end] as AssistantEvent;
          watcher.ended(last);
          yield end === batch.length - 1 ? batch : batch.slice(0, end + 1);
          return;
        }
        yield batch;
      }
      const next = await iterator.next();
      if (next.done === true) break;
      batch = next.value.length > 0 ? next.value : undefined;
    }
  } catch (e) {
    error = watcher.ended({ type: "error", error: toGatewayError(e) });
    yield [{ type: "error", error: error ?? toGatewayError(e) }];
    return;
  } finally {
    await iterator.return?.();
  }
  error = watcher.ended({ type: "error", error: unfinishedTurn() });
  yield [{ type: "error", error: error ?? unfinishedTurn() }];
}
