import type { FinishReason, GatewayError, Usage } from "@proxy/core";

export type GeminiPart =
  | { readonly text: string; readonly thought?: true }
  | {
      readonly functionCall: {
        readonly id: string;
        readonly name: string;
        readonly args: Record<string, unknown>;
      };
      readonly thoughtSignature: string;
    };

export type GeminiFinishReason = "STOP" | "MAX_TOKENS" | "SAFETY" | "MALFORMED_FUNCTION_CALL" | "OTHER";

export interface GeminiUsage {
  readonly promptTokenCount: number;
  readonly candidatesTokenCount: number;
  readonly totalTokenCount: number;
  readonly thoughtsTokenCount?: number;
  readonly cachedContentTokenCount?: number;
}

/**
 * A grounded answer's sources (Google Search grounding): the queries the model searched, the pages
 * (`groundingChunks`) and which parts of the text each supports (byte offsets into the answer's text).
 */
export interface GroundingMetadata {
  readonly webSearchQueries: ReadonlyArray<string>;
  readonly groundingChunks: ReadonlyArray<{ readonly web: { readonly uri: string; readonly title: string } }>;
  readonly groundingSupports: ReadonlyArray<{
    readonly segment: { readonly startIndex: number; readonly endIndex: number; readonly text: string };
    readonly groundingChunkIndices: ReadonlyArray<number>;
  }>;
}

/** One `GenerateContentResponse` (a whole answer, or one chunk of a stream: chunks are deltas). */
export interface GeminiResponse {
  readonly candidates: ReadonlyArray<{
    readonly content: { readonly role: "model"; readonly parts: ReadonlyArray<GeminiPart> };
    readonly finishReason?: GeminiFinishReason;
    readonly groundingMetadata?: GroundingMetadata;
    readonly index: 0;
  }>;
  readonly usageMetadata?: GeminiUsage;
  readonly modelVersion: string;
  readonly responseId: string;
}

/** What every chunk of one response shares. */
export interface ResponseMeta {
  readonly modelVersion: string;
  readonly responseId: string;
}

export const geminiFinishReason = (reason: FinishReason): GeminiFinishReason => {
  switch (reason) {
    case "stop":
    case "tool_calls":
      return "STOP";
    case "length":
      return "MAX_TOKENS";
    case "content_filter":
      return "SAFETY";
    default:
      return "OTHER";
  }
};

/** Google counts thoughts apart from candidates; core's output tokens include reasoning. */
export const geminiUsage = (usage: Usage): GeminiUsage => {
  const thoughts = usage.reasoningOutputTokens ?? 0;
  return {
    promptTokenCount: usage.inputTokens,
    candidatesTokenCount: Math.max(0, usage.outputTokens - thoughts),
    totalTokenCount: usage.totalTokens,
    ...(thoughts > 0 ? { thoughtsTokenCount: thoughts } : {}),
    ...(usage.cachedInputTokens ? { cachedContentTokenCount: usage.cachedInputTokens } : {}),
  };
};

/** A call Google could not produce: a strict call still invalid, or a required call still missing. */
export const isMalformedCall = (error: GatewayError): boolean =>
  error.kind === "tool_call_validation_failed" || error.kind === "tool_choice_not_satisfied";

export const responseOf = (
  meta: ResponseMeta,
  parts: ReadonlyArray<GeminiPart>,
  finishReason?: GeminiFinishReason,
  usage?: Usage,
  groundingMetadata?: GroundingMetadata,
): GeminiResponse => ({
  candidates: [
    {
      content: { role: "model", parts },
      ...(finishReason === undefined ? {} : { finishReason }),
      ...(groundingMetadata === undefined ? {} : { groundingMetadata }),
      index: 0,
    },
  ],
  ...(usage === undefined ? {} : { usageMetadata: geminiUsage(usage) }),
  modelVersion: meta.modelVersion,
  responseId: meta.responseId,
});
