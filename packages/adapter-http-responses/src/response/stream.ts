import { GatewayError } from "@proxy/core";
import type { StreamAnswer, TurnExchange } from "@proxy/http-surface";
import type { ResolvedDeps } from "../deps.js";
import { openResponsesAnswer, type ResponsesTurn } from "./answer.js";
import { type ResponsesSink, sseEventSink } from "./event-sinks.js";

/** Why a stream stopped before its turn ended: the client left, or stopped reading. */
const clientGone = (cancelled: boolean): GatewayError =>
  cancelled
    ? new GatewayError("cancelled", "The client closed the connection.")
    : new GatewayError("timeout", "The client stopped reading the stream.");

/**
 * A streamed answer: the Responses events as SSE frames (a stored turn's recorder keeps them too).
 * However the turn ended, the response ends and is stored before the stream closes, so the
 * client's next turn can refer to it.
 */
export const responsesStream = (
  turn: ResponsesTurn,
  exchange: TurnExchange<ResolvedDeps>,
): StreamAnswer<ResponsesSink> => {
  const answer = openResponsesAnswer(turn, exchange);
  const { encoder, recorder } = answer;
  return {
    open: (sse) => sseEventSink(sse, recorder?.keep),
    encoder: answer.frames,
    async settle(sink) {
      // The client went away mid-turn: the response still ends, as failed, before it is stored.
      if (!encoder.finished) encoder.fail(clientGone(exchange.session.cancelled()), sink);
      answer.done();
      await recorder?.save(encoder.response());
    },
  };
};
