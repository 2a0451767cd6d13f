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
      const send = (chunk: unknown) => sink.send(JSON.stringify(chunk));
      // Kept only when the answer is wanted whole (a stored conversation).
      const sent: GeminiResponse[] = [];
      // The session ends `events` with exactly one finish or error.
      for await (const event of started.events) {
        if (sink.aborted) return;
        if (event.type === "finish" || event.type === "error") {
          const last = encoder.end(event);
          if (onAnswer !== undefined && event.type === "finish" && last !== undefined) {
            const kept = await onAnswer(foldChunks(meta, [...sent, last])).then(
              () => undefined,
              (error: unknown) => error,
            );
            if (kept !== undefined) return send(toHttpError(kept, geminiErrorBody).body);
          }
          await sendEnd(event, last, send, session);
        } else
          for (const chunk of encoder.push(event)) {
            if (onAnswer !== undefined) sent.push(chunk);
            await send(chunk);
          }
      }
    });

  const chunks: GeminiResponse[] = [];
  let failure: GatewayError | undefined = unfinishedTurn();
  let finishedWithError = false;
  for await (const event of started.events) {
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
    } else chunks.push(...encoder.push(event));
  }
  if (failure !== undefined) return session.fail(failure);
  const answer = foldChunks(meta, chunks);
  if (onAnswer !== undefined && !finishedWithError) await onAnswer(answer);
  return session.json(delivery === "json" ? answer : chunks);
};

/** A stream's end: the closing chunk, or Google's error object as one `data:` line. */
const sendEnd = async (
  event: Extract<AssistantEvent, { type: "finish" | "error" }>,
  last: GeminiResponse | undefined,
  send: (chunk: unknown) => Promise<void>,
  session: TurnSession,
): Promise<void> => {
  if (last !== undefined) {
    if (event.type === "error") session.recordError(event.error);
    await send(last);
    return;
  }
  const error = event.type === "error" ? event.error : unfinishedTurn();
  await send(toHttpError(error, geminiErrorBody).body);
};
