import type { FinishReason, Usage } from "@proxy/core";
import { jsonString } from "@proxy/http-surface";
import type { ChatDelta, UrlCitationAnnotation } from "../delta-encoder.js";

/** What every chunk (and the non-stream completion) of one response shares. */
export interface ResponseMeta {
  readonly id: string;
  readonly created: number;
  readonly model: string;
}

export type ChatFinishReason = "stop" | "length" | "tool_calls" | "content_filter" | "function_call";

/** `tool_calls` becomes `function_call` for legacy `functions` requests; Chat has no `error` reason. */
export const chatFinishReason = (reason: FinishReason, legacyFunctions: boolean): ChatFinishReason => {
  if (reason === "tool_calls") return legacyFunctions ? "function_call" : "tool_calls";
  return reason === "error" ? "stop" : reason;
};

export const chatUsage = (usage: Usage) => ({
  prompt_tokens: usage.inputTokens,
  completion_tokens: usage.outputTokens,
  total_tokens: usage.totalTokens,
  ...(usage.cachedInputTokens === undefined
    ? {}
    : { prompt_tokens_details: { cached_tokens: usage.cachedInputTokens } }),
  ...(usage.reasoningOutputTokens === undefined
    ? {}
    : { completion_tokens_details: { reasoning_tokens: usage.reasoningOutputTokens } }),
});

/**
 * One `chat.completion.chunk`. With `include_usage`, OpenAI puts `usage: null` on every chunk but the
 * last; clients that read it expect the key.
 */
export const chunk = (
  meta: ResponseMeta,
  delta: ChatDelta,
  finishReason: ChatFinishReason | null,
  includeUsage: boolean,
) => ({
  id: meta.id,
  object: "chat.completion.chunk",
  created: meta.created,
  model: meta.model,
  choices: [{ index: 0, delta, logprobs: null, finish_reason: finishReason }],
  ...(includeUsage ? { usage: null } : {}),
});

/**
 * The SSE frame of a content-only chunk, from a template built once per response: the bytes
 * `sseFrame(JSON.stringify(chunk(meta, {content}, null, includeUsage)))` gives, without building
 * and serialising the envelope for every text delta (the stream's most frequent frame).
 */
export const contentFrameTemplate = (meta: ResponseMeta, includeUsage: boolean) => {
  const marker = "\u0000";
  const json = JSON.stringify(chunk(meta, { content: marker }, null, includeUsage));
  // The last occurrence: `content` comes after `id` and `model`, which could hold the marker too.
  const at = json.lastIndexOf(JSON.stringify(marker));
  const head = `data: ${json.slice(0, at)}`;
  const tail = `${json.slice(at + JSON.stringify(marker).length)}\n\n`;
  return {
    head,
    tail,
    /** The frame of one content delta. */
    frame: (text: string): string => head + jsonString(text) + tail,
  };
};

export const usageChunk = (meta: ResponseMeta, usage: Usage) => ({
  id: meta.id,
  object: "chat.completion.chunk",
  created: meta.created,
  model: meta.model,
  choices: [],
  usage: chatUsage(usage),
});

type AccumulatedCall =
  | { id: string; type: "function"; function: { name: string; arguments: string } }
  | { id: string; type: "custom"; custom: { name: string; input: string } };

/**
 * Folds Chat deltas into the non-stream `message`, exactly as a streaming client would: names and ids
 * from a call's first delta, arguments appended. `content` is null when only calls came back.
 */
export const createMessageAccumulator = () => {
  let content: string | undefined;
  let reasoning: string | undefined;
  let annotations: ReadonlyArray<UrlCitationAnnotation> | undefined;
  const calls: AccumulatedCall[] = [];
  let functionCall: { name: string; arguments: string } | undefined;

  return {
    /** Content text, as a `{content}` delta would add it (an empty one adds nothing). */
    addContent(text: string): void {
      if (text !== "") content = (content ?? "") + text;
    },
    add(delta: ChatDelta): void {
      if (delta.content !== undefined) content = (content ?? "") + delta.content;
      if (delta.reasoning_content !== undefined) reasoning = (reasoning ?? "") + delta.reasoning_content;
      if (delta.annotations !== undefined) annotations = [...(annotations ?? []), ...delta.annotations];
      for (const call of delta.tool_calls ?? []) {
        const known = calls[call.index];
        if ("custom" in call) {
          if (known?.type === "custom") known.custom.input += call.custom.input;
          else
            calls[call.index] = {
              id: call.id ?? "",
              type: "custom",
              custom: { name: call.custom.name ?? "", input: call.custom.input },
            };
        } else if (known?.type === "function") known.function.arguments += call.function.arguments;
        else
          calls[call.index] = {
            id: call.id ?? "",
            type: "function",
            function: { name: call.function.name ?? "", arguments: call.function.arguments },
          };
      }
      if (delta.function_call !== undefined) {
        functionCall ??= { name: "", arguments: "" };
        if (delta.function_call.name !== undefined) functionCall.name = delta.function_call.name;
        functionCall.arguments += delta.function_call.arguments;
      }
    },
    message() {
      const hasCalls = calls.length > 0 || functionCall !== undefined;
      return {
        role: "assistant" as const,
        content: content ?? (hasCalls ? null : ""),
        refusal: null,
        ...(reasoning === undefined ? {} : { reasoning_content: reasoning }),
        ...(annotations === undefined ? {} : { annotations }),
        ...(calls.length > 0 ? { tool_calls: calls } : {}),
        ...(functionCall === undefined ? {} : { function_call: functionCall }),
      };
    },
  };
};
