import { ModelName } from "@proxy/http-surface";
import * as Schema from "effect/Schema";
import { RawInput } from "./input-schema.js";

const opt = <S extends Schema.Top>(schema: S) => Schema.optional(Schema.NullOr(schema));

const JsonObject = Schema.Record(Schema.String, Schema.Unknown);

export const TextFormat = Schema.Union([
  Schema.Struct({ type: Schema.Literal("text") }),
  Schema.Struct({ type: Schema.Literal("json_object") }),
  Schema.Struct({
    type: Schema.Literal("json_schema"),
    name: Schema.optional(Schema.String),
    schema: JsonObject,
    strict: opt(Schema.Boolean),
    description: opt(Schema.String),
  }),
]);
export type TextFormat = typeof TextFormat.Type;

export const ReasoningEffort = Schema.Literals(["none", "minimal", "low", "medium", "high", "xhigh"]);

export const ReasoningConfig = Schema.Struct({
  effort: opt(ReasoningEffort),
  summary: opt(Schema.Literals(["auto", "concise", "detailed", "none"])),
});

const PositiveInt = Schema.Int.check(Schema.isGreaterThan(0));

/**
 * `POST /v1/responses`. `tools` and `tool_choice` stay raw here: `decode-tools.ts` decodes
 * function and custom tools (naming their paths) and sets hosted tools aside.
 * Fields we accept but cannot honour are typed loosely and ignored (see docs/responses.md).
 */
export const ResponsesRequest = Schema.Struct({
  model: ModelName,
  input: Schema.optional(RawInput),
  instructions: opt(Schema.String),
  tools: opt(Schema.Array(Schema.Unknown)),
  tool_choice: opt(Schema.Unknown),
  parallel_tool_calls: opt(Schema.Boolean),
  text: opt(Schema.Struct({ format: opt(TextFormat), verbosity: opt(Schema.String) })),
  reasoning: opt(ReasoningConfig),
  max_output_tokens: opt(PositiveInt),
  stream: opt(Schema.Boolean),
  previous_response_id: opt(Schema.String),
  conversation: opt(Schema.Unknown),
  background: opt(Schema.Boolean),
  max_tool_calls: opt(PositiveInt),
  // Accepted and ignored:
  store: opt(Schema.Boolean),
  metadata: opt(Schema.Record(Schema.String, Schema.String)),
  include: opt(Schema.Array(Schema.String)),
  temperature: opt(Schema.Finite),
  top_p: opt(Schema.Finite),
  user: opt(Schema.String),
  prompt_cache_key: opt(Schema.String),
  client_metadata: opt(Schema.Unknown),
  service_tier: opt(Schema.String),
  truncation: opt(Schema.Literals(["auto", "disabled"])),
  safety_identifier: opt(Schema.String),
  stream_options: opt(Schema.Unknown),
  top_logprobs: opt(Schema.Int.check(Schema.isBetween({ minimum: 0, maximum: 20 }))),
});
export type ResponsesRequest = typeof ResponsesRequest.Type;

/** Legacy `POST /v1/responses/compact` (codex before 0.169): non-streaming, one compaction item back. */
export const CompactRequest = Schema.Struct({
  model: ModelName,
  input: RawInput,
  instructions: opt(Schema.String),
  tools: opt(Schema.Array(Schema.Unknown)),
  parallel_tool_calls: opt(Schema.Boolean),
  reasoning: opt(ReasoningConfig),
  text: opt(Schema.Unknown),
  service_tier: opt(Schema.String),
  prompt_cache_key: opt(Schema.String),
});
export type CompactRequest = typeof CompactRequest.Type;
