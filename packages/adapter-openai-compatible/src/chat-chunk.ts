import type { Finish, Usage } from "@proxy/core";
import * as Result from "effect/Result";
import * as Schema from "effect/Schema";
import * as SchemaParser from "effect/SchemaParser";

const OptionalText = Schema.optional(Schema.NullOr(Schema.String));
const OptionalCount = Schema.optional(Schema.NullOr(Schema.Number));

/** One streamed `tool_calls` entry (native mode): id and name come first, arguments in pieces. */
const ToolCallDelta = Schema.Struct({
  index: Schema.optional(Schema.Number),
  id: OptionalText,
  function: Schema.optional(Schema.NullOr(Schema.Struct({ name: OptionalText, arguments: OptionalText }))),
});

const Delta = Schema.Struct({
  content: OptionalText,
  /** DeepSeek, vLLM and llama.cpp name the reasoning channel this way… */
  reasoning_content: OptionalText,
  /** …Ollama and OpenRouter this way. */
  reasoning: OptionalText,
  tool_calls: Schema.optional(Schema.NullOr(Schema.Array(ToolCallDelta))),
});

const UpstreamUsage = Schema.Struct({
  prompt_tokens: Schema.Number,
  completion_tokens: Schema.Number,
  total_tokens: OptionalCount,
  prompt_tokens_details: Schema.optional(Schema.NullOr(Schema.Struct({ cached_tokens: OptionalCount }))),
  completion_tokens_details: Schema.optional(
    Schema.NullOr(Schema.Struct({ reasoning_tokens: OptionalCount })),
  ),
});

const UpstreamError = Schema.Struct({
  message: OptionalText,
  type: OptionalText,
  code: Schema.optional(Schema.Unknown),
});

/** A `chat.completion.chunk` as OpenAI-compatible servers stream it; unknown fields are ignored. */
export const ChatChunk = Schema.Struct({
  choices: Schema.optional(
    Schema.NullOr(
      Schema.Array(
        Schema.Struct({
          index: Schema.optional(Schema.Number),
          delta: Schema.optional(Schema.NullOr(Delta)),
          finish_reason: OptionalText,
        }),
      ),
    ),
  ),
  usage: Schema.optional(Schema.NullOr(UpstreamUsage)),
  /** Some servers (vLLM, llama.cpp) report a failure mid-stream as a data event with `error`. */
  error: Schema.optional(Schema.Union([UpstreamError, Schema.String])),
});
export type ChatChunk = typeof ChatChunk.Type;
export type ToolCallDelta = typeof ToolCallDelta.Type;

const decodeChunk = SchemaParser.decodeUnknownResult(Schema.fromJsonString(ChatChunk));

/** `data:` payload → chunk, or undefined when it is not JSON of the chunk's shape. */
export const decodeChatChunk = (data: string): ChatChunk | undefined => {
  const result = decodeChunk(data);
  return Result.isSuccess(result) ? result.success : undefined;
};

const decodeErrorBody = SchemaParser.decodeUnknownResult(
  Schema.fromJsonString(
    Schema.Struct({
      error: Schema.optional(Schema.Union([UpstreamError, Schema.String])),
      message: OptionalText,
      detail: Schema.optional(Schema.Unknown),
    }),
  ),
);

/** An upstream error body (`{error:{message}}`, `{error:"…"}`, `{message}` or `{detail}`) → its message. */
export const upstreamErrorMessage = (body: string): string | undefined => {
  const result = decodeErrorBody(body);
  if (!Result.isSuccess(result)) return undefined;
  const { error, message, detail } = result.success;
  if (typeof error === "string") return error;
  return error?.message ?? message ?? (typeof detail === "string" ? detail : undefined) ?? undefined;
};
export const toUsage = (u: NonNullable<ChatChunk["usage"]>): Usage => ({
  inputTokens: u.prompt_tokens,
  outputTokens: u.completion_tokens,
  totalTokens: u.total_tokens ?? u.prompt_tokens + u.completion_tokens,
  ...(u.prompt_tokens_details?.cached_tokens
    ? { cachedInputTokens: u.prompt_tokens_details.cached_tokens }
    : {}),
  ...(u.completion_tokens_details?.reasoning_tokens
    ? { reasoningOutputTokens: u.completion_tokens_details.reasoning_tokens }
    : {}),
});

/** The upstream's `finish_reason` as the gateway's unified finish. */
export const mapFinishReason = (raw: string | undefined): Finish => {
  switch (raw) {
    case "length":
      return { reason: "length", raw };
    case "tool_calls":
    case "function_call":
      return { reason: "tool_calls", raw };
    case "content_filter":
      return { reason: "content_filter", raw };
    default:
      return { reason: "stop", raw: raw ?? "stop" };
  }
};
