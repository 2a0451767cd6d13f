import { type Finish, GatewayError, toGatewayError } from "@proxy/core";
import type { Context } from "hono";
import { createMessageAccumulator } from "../response/message-accumulator.js";
import { createMessageEncoder } from "../response/message-encoder.js";
import { errorResponse } from "./error-response.js";
import { nextEvent, type StartedTurn } from "./started-turn.js";

/**
 * Runs a started turn to its end and answers with one Message, folded from the same events the
 * stream would have sent. Any failure is an HTTP error in Anthropic's shape: nothing has been sent
 * yet, so the client gets a status it can act on.
 */
export const completeMessage = async (c: Context, turn: StartedTurn): Promise<Response> => {
  const encoder = createMessageEncoder(turn.meta);
  const message = createMessageAccumulator();
  let finish: Finish | undefined;
  let error: GatewayError | undefined;
  for (const e of encoder.push(turn.head)) message.add(e);
  try {
    for (
      let event = await nextEvent(turn.events);
      event !== undefined;
      event = await nextEvent(turn.events)
    ) {
      if (event.type === "finish") finish = event.finish;
      else if (event.type === "error") error = event.error;
      for (const e of encoder.push(event)) message.add(e);
    }
  } catch (e) {
    error = toGatewayError(e);
  }
  if (turn.cancelled()) error = new GatewayError("cancelled", "The client closed the connection.");
  const body = message.message();
  if (error !== undefined || finish === undefined || body === undefined) {
    const failure = error ?? new GatewayError("backend_error", "The turn ended without a finish.");
    turn.end({ error: failure });
    return errorResponse(c, failure);
  }
  turn.end({ finish: finish.reason, ttfbMs: turn.elapsedMs() });
  return c.json(body);
};
