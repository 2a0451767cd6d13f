import type { TurnFolder, TurnSession } from "@proxy/http-surface";
import { unfinishedTurn } from "@proxy/http-surface";
import { createGeminiEncoder, foldChunks } from "../response-encoder.js";
import type { GeminiResponse } from "../response-shapes.js";
import type { GeminiTurn } from "./answer.js";

/**
 * Folds an accepted turn into one `GenerateContentResponse` (`:generateContent`, `POST /gemini`
 * without `stream`) or the JSON array of its chunks (`:streamGenerateContent` without `alt=sse`),
 * from the same chunks the stream would have sent.
 */
export const geminiFolder = (turn: GeminiTurn, session: TurnSession): TurnFolder => {
  const { meta, onAnswer } = turn;
  const encoder = createGeminiEncoder({ meta, includeThoughts: turn.plan.includeThoughts });
  const chunks: GeminiResponse[] = [];
  return {
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
      return { body: turn.delivery === "json" ? answer : chunks };
    },
  };
};
