import type { Finish, GatewayError, Usage } from "@proxy/core";
import { setToolCallHeaders, unfinishedTurn } from "@proxy/http-surface";
import type { Context } from "hono";
import { chatFinishReason, chatUsage, createMessageAccumulator } from "./chat-shapes.js";
import { createDeltaEncoder } from "./delta-encoder.js";
import type { ChatTurn } from "./started-turn.js";

/**
 * Runs an accepted turn to its end and answers with one `chat.completion`, built by folding the same
 * deltas the stream would have sent. Any failure, even after calls were produced, is an HTTP error:
 * nothing has been sent yet, so the client gets a status it can act on.
 */
export const completeChatCompletion = async (c: Context, turn: ChatTurn): Promise<Response> => {
  const { meta, plan, session } = turn;
  const encoder = createDeltaEncoder({
    outputMode: session.settings.outputMode,
    legacyFunctions: plan.legacyFunctions,
    customTools: plan.customTools,
  });
  const message = createMessageAccumulator();
  let finish: Finish | undefined;
  let usage: Usage | undefined;
  let error: GatewayError | undefined;
  for await (const batch of turn.batches)
    for (const event of batch) {
      if (event.type === "finish") finish = event.finish;
      else if (event.type === "usage") usage = event.usage;
      else if (event.type === "error") error = event.error;
      else for (const delta of encoder.encode(event)) message.add(delta);
    }
  setToolCallHeaders(c, session.telemetry());
  if (error !== undefined || finish === undefined) return session.fail(error ?? unfinishedTurn());
  return session.json({
    id: meta.id,
    object: "chat.completion",
    created: meta.created,
    model: meta.model,
    choices: [
      {
        index: 0,
        message: message.message(),
        logprobs: null,
        finish_reason: chatFinishReason(finish.reason, plan.legacyFunctions),
      },
    ],
    ...(usage === undefined ? {} : { usage: chatUsage(usage) }),
  });
};
