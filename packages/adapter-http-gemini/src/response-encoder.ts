import type { AssistantEvent, Usage } from "@proxy/core";
import { groundingOf } from "./response/grounding.js";
import {
  type GeminiFinishReason,
  type GeminiPart,
  type GeminiResponse,
  type GroundingMetadata,
  geminiFinishReason,
  isMalformedCall,
  type ResponseMeta,
  responseOf,
} from "./response-shapes.js";

export interface EncoderOptions {
  readonly meta: ResponseMeta;
  readonly includeThoughts: boolean;
}

/** `args` must be an object on the wire; core hands over the call's final JSON text. */
const argsObject = (text: string): Record<string, unknown> => {
  if (text.trim() === "") return {};
  try {
    const value: unknown = JSON.parse(text);
    return typeof value === "object" && value !== null && !Array.isArray(value)
      ? (value as Record<string, unknown>)
      : { value };
  } catch {
    return { arguments: text };
  }
};

/**
 * An opaque signature for one call of one response. Clients echo it back (the Gemini CLI replaces a
 * missing one by a placeholder); it is accepted and ignored on the way in, so it only has to be
 * unique to this response, and it carries nothing of any other request.
 */
const signatureOf = (meta: ResponseMeta, callId: string): string =>
  btoa(`gateway-signature:${meta.responseId}:${callId}`);

/**
 * Assistant events → `GenerateContentResponse` chunks: the single translation both the SSE stream
 * and the non-stream answer (folded from the same chunks) are built from. Text and thoughts go out
 * as they arrive (the turn already cut the text at a stop sequence); a function call goes out whole,
 * `args` as an object, when it ends. `end` gives the last chunk: its `finishReason` and `usageMetadata`.
 */
export const createGeminiEncoder = (options: EncoderOptions) => {
  const { meta } = options;
  let usage: Usage | undefined;
  /** The queries of the hosted searches so far; once there is one, the answer's text is kept for its grounding. */
  const queries: string[] = [];
  let text = "";
  const one = (part: GeminiPart): GeminiResponse[] => [responseOf(meta, [part])];

  return {
    push(event: AssistantEvent): GeminiResponse[] {
      switch (event.type) {
        case "text-delta":
          if (queries.length > 0) text += event.delta;
          return event.delta === "" ? [] : one({ text: event.delta });
        case "web-search":
          if (event.status === "completed" && event.query !== undefined) queries.push(event.query);
          return [];
        case "reasoning-delta":
          return options.includeThoughts && event.delta !== ""
            ? one({ text: event.delta, thought: true })
            : [];
        case "tool-call-end":
          return one({
            functionCall: { id: event.callId, name: event.name, args: argsObject(event.arguments) },
            thoughtSignature: signatureOf(meta, event.callId),
          });
        case "usage":
          usage = event.usage;
          return [];
        default:
          return [];
      }
    },
    /**
     * The closing chunk for a `finish`, or for an `error` Google reports as a finish reason (a
     * call it could not produce); undefined for any other error, which the caller sends as one.
     */
    end(event: Extract<AssistantEvent, { type: "finish" | "error" }>): GeminiResponse | undefined {
      let reason: GeminiFinishReason;
      if (event.type === "error") {
        if (!isMalformedCall(event.error)) return undefined;
        reason = "MALFORMED_FUNCTION_CALL";
      } else reason = geminiFinishReason(event.finish.reason);
      const grounding = queries.length > 0 ? groundingOf(queries, text) : undefined;
      return responseOf(meta, [{ text: "" }], reason, usage, grounding);
    },
  };
};

/** Folds stream chunks into one answer, as a streaming client would: adjacent texts of a kind joined. */
export const foldChunks = (meta: ResponseMeta, chunks: ReadonlyArray<GeminiResponse>): GeminiResponse => {
  const parts: GeminiPart[] = [];
  let finishReason: GeminiFinishReason | undefined;
  let usageMetadata: GeminiResponse["usageMetadata"];
  let groundingMetadata: GroundingMetadata | undefined;
  for (const chunk of chunks) {
    const candidate = chunk.candidates[0];
    finishReason = candidate?.finishReason ?? finishReason;
    groundingMetadata = candidate?.groundingMetadata ?? groundingMetadata;
    usageMetadata = chunk.usageMetadata ?? usageMetadata;
    for (const part of candidate?.content.parts ?? []) {
      const last = parts.at(-1);
      if ("text" in part) {
        if (part.text === "") continue;
        if (last !== undefined && "text" in last && last.thought === part.thought) {
          parts[parts.length - 1] = { ...last, text: last.text + part.text };
          continue;
        }
      }
      parts.push(part);
    }
  }
  if (parts.length === 0) parts.push({ text: "" });
  return {
    candidates: [
      {
        content: { role: "model", parts },
        ...(finishReason === undefined ? {} : { finishReason }),
        ...(groundingMetadata === undefined ? {} : { groundingMetadata }),
        index: 0,
      },
    ],
    ...(usageMetadata === undefined ? {} : { usageMetadata }),
    modelVersion: meta.modelVersion,
    responseId: meta.responseId,
  };
};
