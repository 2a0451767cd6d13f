import type { AssistantEvent } from "@proxy/core";
import {
  type SseSink,
  type StreamEncoder,
  type TurnSession,
  toHttpError,
  unfinishedTurn,
} from "@proxy/http-surface";
import { geminiErrorBody } from "../gemini-error.js";
import { createGeminiEncoder, foldChunks } from "../response-encoder.js";
import type { GeminiResponse } from "../response-shapes.js";
import type { GeminiTurn } from "./answer.js";

/**
 * The frames of an accepted turn as Gemini SSE: one `data:` line per `GenerateContentResponse`
 * chunk, the closing chunk (finish reason, usage) or Google's error object last. A stored
 * conversation gets the whole answer (`onAnswer`) before the closing chunk is sent.
 */
export const geminiStreamEncoder = (turn: GeminiTurn, session: TurnSession): StreamEncoder => {
  const { meta, onAnswer } = turn;
  const encoder = createGeminiEncoder({ meta, includeThoughts: turn.plan.includeThoughts });
  // Kept only when the answer is wanted whole (a stored conversation).
  const sent: GeminiResponse[] = [];
  const queue = (sink: SseSink, chunk: unknown) => sink.queue(JSON.stringify(chunk));
  return {
    push(event, sink) {
      for (const chunk of encoder.push(event)) {
        if (onAnswer !== undefined) sent.push(chunk);
        queue(sink, chunk);
      }
    },
    async end(event, sink) {
      const last = encoder.end(event);
      if (onAnswer !== undefined && event.type === "finish" && last !== undefined) {
        const kept = await onAnswer(foldChunks(meta, [...sent, last])).then(
          () => undefined,
          (error: unknown) => error,
        );
        if (kept !== undefined) return queue(sink, toHttpError(kept, geminiErrorBody).body);
      }
      queueEnd(event, last, (chunk) => queue(sink, chunk), session);
    },
  };
};

/** A stream's end: the closing chunk, or Google's error object as one `data:` line. */
const queueEnd = (
  event: Extract<AssistantEvent, { type: "finish" | "error" }>,
  last: GeminiResponse | undefined,
  queue: (chunk: unknown) => void,
  session: TurnSession,
): void => {
  if (last !== undefined) {
    if (event.type === "error") session.recordError(event.error);
    queue(last);
    return;
  }
  const error = event.type === "error" ? event.error : unfinishedTurn();
  queue(toHttpError(error, geminiErrorBody).body);
};
