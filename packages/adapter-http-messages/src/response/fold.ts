import { toGatewayError } from "@proxy/core";
import type { TurnFolder } from "@proxy/http-surface";
import { createMessageAccumulator } from "./message-accumulator.js";
import { createMessageEncoder } from "./message-encoder.js";
import type { MessageMeta } from "./message-shapes.js";

/**
 * Folds an accepted turn into one Message, from the same events the
 * stream would have sent. A failure is an HTTP error in Anthropic's shape: nothing has been sent
 * yet, so the client gets a status it can act on.
 */
export const messageFolder = (meta: MessageMeta): TurnFolder => {
  const encoder = createMessageEncoder(meta);
  const message = createMessageAccumulator();
  for (const out of encoder.push({ type: "stream-start" })) message.add(out);
  return {
    push(event) {
      for (const out of encoder.push(event)) message.add(out);
    },
    end(terminal) {
      if (terminal.type === "error") return { error: terminal.error };
      for (const out of encoder.push(terminal)) message.add(out);
      const body = message.message();
      return body === undefined ? { error: toGatewayError(undefined) } : { body };
    },
  };
};
