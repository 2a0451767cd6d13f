import type { ToolPolicy, TurnRequest } from "@proxy/core";
import type { GeminiTurnPlan } from "../request/decode-request.js";
import type { GeminiResponse, ResponseMeta } from "../response-shapes.js";

/** How the answer is delivered: SSE `data:` lines, one JSON answer, or the JSON array of chunks. */
export type Delivery = "sse" | "json" | "json-array";

/** Called with the whole answer of a turn that finished (not failed), before its last byte is sent. */
export type OnAnswer = (answer: GeminiResponse) => Promise<void>;

/** One decoded Gemini turn: what the kit starts, and how its answer is delivered. */
export interface GeminiTurn {
  readonly request: TurnRequest;
  readonly tools: ToolPolicy;
  /** Streamed as SSE (`alt=sse`, or `stream` on `POST /gemini`). */
  readonly stream: boolean;
  readonly plan: GeminiTurnPlan;
  readonly delivery: Delivery;
  readonly meta: ResponseMeta;
  readonly onAnswer?: OnAnswer | undefined;
}
