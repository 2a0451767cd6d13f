import { type AssistantBatch, toGatewayError } from "@proxy/core";
import { foldTurn, type TurnSession } from "@proxy/http-surface";
import { createMessageAccumulator } from "../response/message-accumulator.js";
import { createMessageEncoder } from "../response/message-encoder.js";
import type { MessageMeta } from "../response/message-shapes.js";

/**
 * Runs a started turn to its end and answers with one Message, folded from the same events the
 * stream would have sent. A failure is an HTTP error in Anthropic's shape: nothing has been sent
 * yet, so the client gets a status it can act on.
 */
export const completeMessage = (
  session: TurnSession,
  meta: MessageMeta,
  batches: AsyncIterable<AssistantBatch>,
): Promise<Response> => {
  const encoder = createMessageEncoder(meta);
  const message = createMessageAccumulator();
  for (const out of encoder.push({ type: "stream-start" })) message.add(out);
  return foldTurn(session, batches, {
    push(event) {
      for (const out of encoder.push(event)) message.add(out);
    },
    end(terminal) {
      if (terminal.type === "error") return { error: terminal.error };
      for (const out of encoder.push(terminal)) message.add(out);
      const body = message.message();
      return body === undefined ? { error: toGatewayError(undefined) } : { body };
    },
  });
};
