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

/**
 * `data:` payload → chunk, or undefined when it is not JSON of the chunk's shape. The shape is
 * `ChatChunk` above, checked by hand: this runs once per upstream delta, and the schema decoder
 * cost ~6 % of a non-stream request's CPU (it rebuilds every object); the parsed value is kept as
 * is, its unknown fields ignored by every reader. `chat-chunk.test.ts` holds the two to one verdict.
 */
export const decodeChatChunk = (data: string): ChatChunk | undefined => {
  let value: unknown;
  try {
    value = JSON.parse(data);
  } catch {
    return undefined;
  }
  return isChatChunk(value) ? value : undefined;
};

type Fields = { readonly [key: string]: unknown };
const isObject = (v: unknown): v is Fields => typeof v === "object" && v !== null && !Array.isArray(v);
/** `Schema.optional(Schema.NullOr(…))`: absent, null or of the type. */
const optText = (v: unknown): boolean => v === undefined || v === null || typeof v === "string";
const optCount = (v: unknown): boolean => v === undefined || v === null || typeof v === "number";
const optNumber = (v: unknown): boolean => v === undefined || typeof v === "number";
const optNullOr = (v: unknown, is: (v: Fields) => boolean): boolean =>
  v === undefined || v === null || (isObject(v) && is(v));
const optArray = (v: unknown, is: (v: unknown) => boolean): boolean => {
  if (v === undefined || v === null) return true;
  if (!Array.isArray(v)) return false;
  for (const item of v) if (!is(item)) return false;
  return true;
};

const isFunctionDelta = (f: Fields): boolean => optText(f.name) && optText(f.arguments);
const isToolCallDelta = (v: unknown): boolean =>
  isObject(v) && optNumber(v.index) && optText(v.id) && optNullOr(v.function, isFunctionDelta);
const isDelta = (d: Fields): boolean =>
  optText(d.content) &&
  optText(d.reasoning_content) &&
  optText(d.reasoning) &&
  optArray(d.tool_calls, isToolCallDelta);
const isChoice = (v: unknown): boolean =>
  isObject(v) && optNumber(v.index) && optNullOr(v.delta, isDelta) && optText(v.finish_reason);
const isCachedDetails = (d: Fields): boolean => optCount(d.cached_tokens);
const isReasoningDetails = (d: Fields): boolean => optCount(d.reasoning_tokens);
const isUsage = (u: Fields): boolean =>
  typeof u.prompt_tokens === "number" &&
  typeof u.completion_tokens === "number" &&
  optCount(u.total_tokens) &&
  optNullOr(u.prompt_tokens_details, isCachedDetails) &&
  optNullOr(u.completion_tokens_details, isReasoningDetails);
const isUpstreamError = (v: unknown): boolean =>
  typeof v === "string" || (isObject(v) && optText(v.message) && optText(v.type));
const isChatChunk = (v: unknown): v is ChatChunk =>
  isObject(v) &&
  optArray(v.choices, isChoice) &&
  optNullOr(v.usage, isUsage) &&
  (v.error === undefined || isUpstreamError(v.error));

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
