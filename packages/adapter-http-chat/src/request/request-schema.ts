import { ModelName } from "@proxy/http-surface";
import * as Schema from "effect/Schema";

/**
 * The Chat Completions request body as OpenAI documents it, decoded with Effect Schema. Unknown fields
 * are dropped; `null` is accepted wherever clients send it for "not set". Tools, tool_choice and the
 * legacy `functions` pair stay `unknown` here: `decode-tools.ts` owns their validation.
 */

const optionalNullable = <S extends Schema.Top>(schema: S) => Schema.optional(Schema.NullOr(schema));

/**
 * Last member of a tagged union: reached only when the tag matches no member, and it always fails on the
 * tag itself, so the reported issue names `messages[2].role` rather than the whole message. Its decoded
 * type is `never`, so it vanishes from the union's type.
 */
const unknownTag = <const Tags extends readonly [string, ...string[]]>(key: "role" | "type", tags: Tags) =>
  Schema.Struct({ [key]: Schema.Literals(tags).check(Schema.makeFilter(() => false)) }).pipe(
    Schema.refine((_): _ is never => false),
  );

const TextPart = Schema.Struct({ type: Schema.Literal("text"), text: Schema.String });

const ImageUrlPart = Schema.Struct({
  type: Schema.Literal("image_url"),
  image_url: Schema.Union([
    Schema.String,
    Schema.Struct({ url: Schema.String, detail: optionalNullable(Schema.Literals(["auto", "low", "high"])) }),
  ]),
});

const RefusalPart = Schema.Struct({ type: Schema.Literal("refusal"), refusal: Schema.String });

const TextContent = Schema.Union([
  Schema.String,
  Schema.Array(Schema.Union([TextPart, unknownTag("type", ["text"])])),
]);

const UserContent = Schema.Union([
  Schema.String,
  Schema.Array(Schema.Union([TextPart, ImageUrlPart, unknownTag("type", ["text", "image_url"])])),
]);

const AssistantContent = Schema.Union([
  Schema.String,
  Schema.Array(Schema.Union([TextPart, RefusalPart, unknownTag("type", ["text", "refusal"])])),
]);

const FunctionCall = Schema.Struct({ name: Schema.String, arguments: Schema.String });

/** A function call (`function`) or, with `type:"custom"`, a custom tool call (`custom`); which one is checked in messages-to-items. */
const AssistantToolCall = Schema.Struct({
  id: Schema.String,
  type: Schema.optional(Schema.Literals(["function", "custom"])),
  function: Schema.optional(FunctionCall),
  custom: Schema.optional(Schema.Struct({ name: Schema.String, input: Schema.String })),
});

const SystemMessage = Schema.Struct({ role: Schema.Literal("system"), content: TextContent });
const DeveloperMessage = Schema.Struct({ role: Schema.Literal("developer"), content: TextContent });
const UserMessage = Schema.Struct({ role: Schema.Literal("user"), content: UserContent });
const AssistantMessage = Schema.Struct({
  role: Schema.Literal("assistant"),
  content: optionalNullable(AssistantContent),
  tool_calls: optionalNullable(Schema.Array(AssistantToolCall)),
  function_call: optionalNullable(FunctionCall),
});
const ToolMessage = Schema.Struct({
  role: Schema.Literal("tool"),
  tool_call_id: Schema.String,
  content: Schema.Union([
    Schema.String,
    Schema.Array(Schema.Union([TextPart, ImageUrlPart, unknownTag("type", ["text", "image_url"])])),
  ]),
  name: optionalNullable(Schema.String),
});
const FunctionMessage = Schema.Struct({
  role: Schema.Literal("function"),
  name: Schema.String,
  content: Schema.NullOr(Schema.String),
});

export const MESSAGE_ROLES = ["system", "developer", "user", "assistant", "tool", "function"] as const;

export const ChatMessage = Schema.Union([
  SystemMessage,
  DeveloperMessage,
  UserMessage,
  AssistantMessage,
  ToolMessage,
  FunctionMessage,
  unknownTag("role", MESSAGE_ROLES),
]);

const ResponseFormat = Schema.Union([
  Schema.Struct({ type: Schema.Literal("text") }),
  Schema.Struct({ type: Schema.Literal("json_object") }),
  Schema.Struct({
    type: Schema.Literal("json_schema"),
    json_schema: Schema.Struct({
      name: Schema.String,
      description: optionalNullable(Schema.String),
      schema: optionalNullable(Schema.Record(Schema.String, Schema.Unknown)),
      strict: optionalNullable(Schema.Boolean),
    }),
  }),
  unknownTag("type", ["text", "json_object", "json_schema"]),
]);

const PositiveInt = Schema.Int.check(Schema.isGreaterThan(0));

export const ChatCompletionRequest = Schema.Struct({
  model: ModelName,
  messages: Schema.Array(ChatMessage).check(Schema.isMinLength(1)),
  stream: optionalNullable(Schema.Boolean),
  stream_options: optionalNullable(Schema.Struct({ include_usage: optionalNullable(Schema.Boolean) })),
  n: optionalNullable(Schema.Int),
  response_format: optionalNullable(ResponseFormat),
  max_tokens: optionalNullable(PositiveInt),
  max_completion_tokens: optionalNullable(PositiveInt),
  /** The hosted web search (OpenAI's search models); `user_location` has no codex equivalent. */
  web_search_options: optionalNullable(
    Schema.Struct({
      search_context_size: optionalNullable(Schema.Literals(["low", "medium", "high"])),
      user_location: optionalNullable(Schema.Unknown),
    }),
  ),
  reasoning_effort: optionalNullable(Schema.Literals(["none", "minimal", "low", "medium", "high", "xhigh"])),
  // Validated by decode-tools.ts, which names the offending path itself.
  tools: Schema.optional(Schema.Unknown),
  tool_choice: Schema.optional(Schema.Unknown),
  parallel_tool_calls: Schema.optional(Schema.Unknown),
  functions: Schema.optional(Schema.Unknown),
  function_call: Schema.optional(Schema.Unknown),
  // Accepted and type-checked, but a text-only backend has no use for them (see docs/chat-completions.md).
  temperature: optionalNullable(Schema.Number),
  top_p: optionalNullable(Schema.Number),
  stop: optionalNullable(Schema.Union([Schema.String, Schema.Array(Schema.String)])),
  seed: optionalNullable(Schema.Number),
  user: optionalNullable(Schema.String),
  metadata: optionalNullable(Schema.Record(Schema.String, Schema.Unknown)),
  frequency_penalty: optionalNullable(Schema.Number),
  presence_penalty: optionalNullable(Schema.Number),
  logit_bias: optionalNullable(Schema.Record(Schema.String, Schema.Number)),
  service_tier: optionalNullable(Schema.String),
  store: optionalNullable(Schema.Boolean),
  logprobs: optionalNullable(Schema.Boolean),
  top_logprobs: optionalNullable(Schema.Number),
});

export type ChatCompletionRequest = typeof ChatCompletionRequest.Type;
export type ChatMessage = typeof ChatMessage.Type;
