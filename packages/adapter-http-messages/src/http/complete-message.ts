import type { AssistantBatch, GatewayError } from "@proxy/core";
import type { TurnSession } from "@proxy/http-surface";
import { createMessageAccumulator } from "../response/message-accumulator.js";
import { createMessageEncoder } from "../response/message-encoder.js";
import type { MessageMeta } from "../response/message-shapes.js";

/**
 * Runs a started turn to its end and answers with one Message, folded from the same events the
 * stream would have sent. A failure is an HTTP error in Anthropic's shape: nothing has been sent
 * yet, so the client gets a status it can act on.
 */
export const completeMessage = async (
  session: TurnSession,
  meta: MessageMeta,
  batches: AsyncIterable<AssistantBatch>,
): Promise<Response> => {
  const encoder = createMessageEncoder(meta);
  const message = createMessageAccumulator();
  let error: GatewayError | undefined;
  for (const out of encoder.push({ type: "stream-start" })) message.add(out);
  for await (const batch of batches)
    for (const event of batch) {
      if (event.type === "error") error = event.error;
      else for (const out of encoder.push(event)) message.add(out);
    }
  const body = message.message();
  return error !== undefined || body === undefined ? session.fail(error) : session.json(body);
};
