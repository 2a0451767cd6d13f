import { setToolCallHeaders, type TurnExchange, type TurnFolder } from "@proxy/http-surface";
import type { ResolvedDeps } from "../deps.js";
import { NOT_STORED_HEADER } from "../stored/record.js";
import { openResponsesAnswer, type ResponsesTurn } from "./answer.js";
import { eventObjectSink } from "./event-sinks.js";

/**
 * An answer that is not streamed: only the final Response object (a stored turn keeps the events
 * too). Nothing was sent yet, so a failed turn is an HTTP error clients already know how to handle.
 */
export const responsesFolder = (turn: ResponsesTurn, exchange: TurnExchange<ResolvedDeps>): TurnFolder => {
  const { c, session } = exchange;
  const answer = openResponsesAnswer(turn, exchange);
  const { encoder, frames, recorder } = answer;
  const sink = eventObjectSink(recorder?.keep);
  frames.start?.(sink);
  return {
    push: (event) => frames.push(event, sink),
    async end(terminal) {
      await frames.end(terminal, sink);
      answer.done();
      const warning = await recorder?.save(encoder.response());
      if (warning !== undefined) c.header(NOT_STORED_HEADER, warning);
      setToolCallHeaders(c, session.telemetry());
      const error = answer.finalError();
      return error === undefined ? { body: encoder.response() } : { error };
    },
  };
};
