import type { AssistantBatch, AssistantEvent, FinishReason, IdGenerator } from "@proxy/core";
import { flattenBatches, type GatewayError, toGatewayError } from "@proxy/core";
import { collectSummary } from "../compaction.js";
import type { TurnPurpose } from "../request/decode-request.js";
import type { ResponsesEncoder, ResponsesEvent } from "../response/encoder.js";
import { toCompactionItem } from "../response/output-items.js";

/**
 * Drives one started turn through the encoder and remembers how it ended. Both the SSE writer
 * and the JSON responder consume `batches()` (one per batch of the turn, written at once); only
 * what they do with the events differs.
 */
export const createResponseRun = (input: {
  readonly encoder: ResponsesEncoder;
  /** The accepted turn's batches, ending in exactly one `finish` or `error`. */
  readonly batches: AsyncIterable<AssistantBatch>;
  readonly purpose: TurnPurpose;
  readonly ids: IdGenerator;
}) => {
  const { encoder, batches, purpose, ids } = input;
  let failure: GatewayError | undefined;
  let finish: FinishReason | undefined;

  const observe = (event: AssistantEvent): void => {
    if (event.type === "error") failure = event.error;
    else if (event.type === "finish") finish = event.finish.reason;
  };

  async function* answer(): AsyncGenerator<ResponsesEvent[]> {
    for await (const batch of batches) {
      const out: ResponsesEvent[] = [];
      for (const event of batch) {
        observe(event);
        for (const encoded of encoder.push(event)) out.push(encoded);
      }
      yield out;
    }
  }

  /** codex remote compaction v2: exactly one `compaction` item, then `response.completed`. */
  async function* compaction(): AsyncGenerator<ResponsesEvent[]> {
    const outcome = await collectSummary(flattenBatches(batches));
    if (!outcome.ok) {
      yield fail(outcome.error);
      return;
    }
    finish = "stop";
    yield encoder.addItem(toCompactionItem(ids.next("cmp"), outcome.summary));
    yield encoder.complete(outcome.usage);
  }

  const fail = (error: GatewayError): ResponsesEvent[] => {
    failure = error;
    return encoder.fail(error);
  };

  return {
    async *batches(): AsyncGenerator<ResponsesEvent[]> {
      yield encoder.start();
      try {
        yield* purpose === "compaction" ? compaction() : answer();
      } catch (error) {
        // A bug or a broken backend iterator: still end with a lifecycle event strict clients read.
        yield fail(toGatewayError(error));
      }
    },
    failure: () => failure,
    finish: () => finish,
  };
};
