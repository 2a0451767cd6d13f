import type { AssistantEvent, GatewayError } from "@proxy/core";
import { type TurnSession, toHttpError, unfinishedTurn } from "@proxy/http-surface";
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

  if (delivery === "sse")
    return session.stream(async (sink) => {
      const queue = (chunk: unknown) => sink.queue(JSON.stringify(chunk));
      // Kept only when the answer is wanted whole (a stored conversation).
      const sent: GeminiResponse[] = [];
      // The session ends the batches with exactly one finish or error; each batch is one write.
      for await (const batch of started.batches) {
        if (sink.aborted) return;
        for (const event of batch) {
          if (event.type === "finish" || event.type === "error") {
            const last = encoder.end(event);
            if (onAnswer !== undefined && event.type === "finish" && last !== undefined) {
              const kept = await onAnswer(foldChunks(meta, [...sent, last])).then(
                () => undefined,
                (error: unknown) => error,
              );
              if (kept !== undefined)
                return sink.send(JSON.stringify(toHttpError(kept, geminiErrorBody).body));
            }
            queueEnd(event, last, queue, session);
          } else
            for (const chunk of encoder.push(event)) {
              if (onAnswer !== undefined) sent.push(chunk);
              queue(chunk);
            }
        }
        await sink.flush();
      }
    });

  const chunks: GeminiResponse[] = [];
  let failure: GatewayError | undefined = unfinishedTurn();
  let finishedWithError = false;
  for await (const batch of started.batches)
    for (const event of batch) {
      if (event.type === "finish" || event.type === "error") {
        const last = encoder.end(event);
        if (last === undefined) failure = event.type === "error" ? event.error : unfinishedTurn();
        else {
          failure = undefined;
          chunks.push(last);
          if (event.type === "error") {
            session.recordError(event.error);
            finishedWithError = true;
          }
        }
      } else for (const chunk of encoder.push(event)) chunks.push(chunk);
    }
  if (failure !== undefined) return session.fail(failure);
  const answer = foldChunks(meta, chunks);
  if (onAnswer !== undefined && !finishedWithError) await onAnswer(answer);
  return session.json(delivery === "json" ? answer : chunks);
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
