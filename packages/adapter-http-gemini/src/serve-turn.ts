import type { AssistantEvent } from "@proxy/core";
import {
  foldTurn,
  type SseSink,
  streamTurn,
  type TurnSession,
  toHttpError,
  unfinishedTurn,
} from "@proxy/http-surface";
import type { GeminiTurnPlan } from "./decode-request.js";
import { geminiErrorBody } from "./gemini-error.js";
import { createGeminiEncoder, foldChunks } from "./response-encoder.js";
import type { GeminiResponse, ResponseMeta } from "./response-shapes.js";

/** How the answer is delivered: SSE `data:` lines, one JSON answer, or the JSON array of chunks. */
export type Delivery = "sse" | "json" | "json-array";

/** Called with the whole answer of a turn that finished (not failed), before its last byte is sent. */
export type OnAnswer = (answer: GeminiResponse) => Promise<void>;

/** Runs one decoded turn on an open session and answers in Gemini's shapes. */
export const serveTurn = async (
  session: TurnSession,
  plan: GeminiTurnPlan,
  meta: ResponseMeta,
  delivery: Delivery,
  onAnswer?: OnAnswer,
): Promise<Response> => {
  const started = await session.start({
    request: plan.request,
    tools: plan.tools,
    stream: delivery === "sse",
  });
  if (!started.accepted) return started.response;
  const encoder = createGeminiEncoder({ meta, includeThoughts: plan.includeThoughts });

  if (delivery === "sse") {
    // Kept only when the answer is wanted whole (a stored conversation).
    const sent: GeminiResponse[] = [];
    const queue = (sink: SseSink, chunk: unknown) => sink.queue(JSON.stringify(chunk));
    return streamTurn(session, started.batches, {
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
    });
  }

  const chunks: GeminiResponse[] = [];
  return foldTurn(session, started.batches, {
    push(event) {
      for (const chunk of encoder.push(event)) chunks.push(chunk);
    },
    async end(event) {
      const last = encoder.end(event);
      if (last === undefined) return { error: event.type === "error" ? event.error : unfinishedTurn() };
      chunks.push(last);
      if (event.type === "error") session.recordError(event.error);
      const answer = foldChunks(meta, chunks);
      if (onAnswer !== undefined && event.type !== "error") await onAnswer(answer);
      return { body: delivery === "json" ? answer : chunks };
    },
  });
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
