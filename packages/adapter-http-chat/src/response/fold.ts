import type { Usage } from "@proxy/core";
import { setToolCallHeaders, type TurnFolder, type TurnSession } from "@proxy/http-surface";
import type { Context } from "hono";
import { createDeltaEncoder } from "../delta-encoder.js";
import type { ChatTurnPlan } from "../request/decode-request.js";
import { chatFinishReason, chatUsage, createMessageAccumulator, type ResponseMeta } from "./chat-shapes.js";

/**
 * Folds an accepted turn into one `chat.completion`, built from the same
 * deltas the stream would have sent. Any failure, even after calls were produced, is an HTTP error:
 * nothing has been sent yet, so the client gets a status it can act on.
 */
export const chatFolder = (
  c: Context,
  plan: ChatTurnPlan,
  session: TurnSession,
  meta: ResponseMeta,
): TurnFolder => {
  const encoder = createDeltaEncoder({
    outputMode: session.settings.outputMode,
    legacyFunctions: plan.legacyFunctions,
    customTools: plan.customTools,
    webSearch: plan.request.hostedTools?.webSearch !== undefined,
  });
  const message = createMessageAccumulator();
  let usage: Usage | undefined;
  return {
    push(event) {
      if (event.type === "text-delta") {
        // The most frequent event folds straight into the content (no delta object per event).
        message.addContent(event.delta);
        encoder.sentText(event.delta);
      } else if (event.type === "usage") usage = event.usage;
      else for (const delta of encoder.encode(event)) message.add(delta);
    },
    end(terminal) {
      setToolCallHeaders(c, session.telemetry());
      if (terminal.type === "error") return { error: terminal.error };
      const annotations = encoder.annotations();
      if (annotations.length > 0) message.add({ annotations });
      return {
        body: {
          id: meta.id,
          object: "chat.completion",
          created: meta.created,
          model: meta.model,
          choices: [
            {
              index: 0,
              message: message.message(),
              logprobs: null,
              finish_reason: chatFinishReason(terminal.finish.reason, plan.legacyFunctions),
            },
          ],
          ...(usage === undefined ? {} : { usage: chatUsage(usage) }),
        },
      };
    },
  };
};
