import { type Finish, GatewayError, httpStatusFor, toGatewayError, type Usage } from "@proxy/core";
import type { Context } from "hono";
import { chatFinishReason, chatUsage, createMessageAccumulator } from "./chat-shapes.js";
import { createDeltaEncoder } from "./delta-encoder.js";
import { nextEvent, type StartedTurn, setToolCallHeaders } from "./started-turn.js";

/** OpenAI's error body with the status for its kind, plus `Retry-After` when the error knows one. */
export const errorResponse = (c: Context, error: GatewayError): Response => {
  if (error.retryAfterSeconds !== undefined)
    c.header("Retry-After", String(Math.ceil(error.retryAfterSeconds)));
  return c.json({ error: error.toOpenAI() }, httpStatusFor(error) as 400);
};

/**
 * Runs a started turn to its end and answers with one `chat.completion`, built by folding the same
 * deltas the stream would have sent. Any failure, even after calls were produced, is an HTTP error:
 * nothing has been sent yet, so the client gets a status it can act on.
 */
export const completeChatCompletion = async (c: Context, turn: StartedTurn): Promise<Response> => {
  const { meta, plan, settings } = turn;
  const encoder = createDeltaEncoder({
    outputMode: settings.outputMode,
    legacyFunctions: plan.legacyFunctions,
  });
  const message = createMessageAccumulator();
  let finish: Finish | undefined;
  let usage: Usage | undefined;
  let error: GatewayError | undefined;
  try {
    for (
      let event = await nextEvent(turn.events);
      event !== undefined;
      event = await nextEvent(turn.events)
    ) {
      if (event.type === "finish") finish = event.finish;
      else if (event.type === "usage") usage = event.usage;
      else if (event.type === "error") error = event.error;
      else for (const delta of encoder.encode(event)) message.add(delta);
    }
  } catch (e) {
    error = toGatewayError(e);
  }
  setToolCallHeaders(c, turn.telemetry());
  if (turn.cancelled()) error = new GatewayError("cancelled", "The client closed the connection.");
  if (error !== undefined || finish === undefined) {
    const failure = error ?? new GatewayError("backend_error", "The turn ended without a finish.");
    turn.end({ error: failure });
    return errorResponse(c, failure);
  }
  turn.end({ finish: finish.reason, ttfbMs: turn.elapsedMs() });
  return c.json({
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
