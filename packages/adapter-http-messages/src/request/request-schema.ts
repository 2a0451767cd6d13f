import { ModelName } from "@proxy/http-surface";
import * as Schema from "effect/Schema";

/**
 * The Messages request body, decoded with Effect Schema. Lenient where Claude Code needs it: unknown
 * fields (`output_config` on system messages, `cache_control`, `citations`, …) are dropped, and the beta features it sends are accepted. Tools and tool_choice are decoded here
 * too, but their cross-field rules (names, deferred loading, the forced tool) live in decode-tools.
 */

/**
 * Last member of a tagged union: reached only when the tag matches no member, and it always fails on
 * the tag itself, so the reported issue names `messages[2].content[0].type` rather than the block.
 */
const unknownTag = <const Tags extends readonly [string, ...string[]]>(key: "role" | "type", tags: Tags) =>
  Schema.Struct({ [key]: Schema.Literals(tags).check(Schema.makeFilter(() => false)) }).pipe(
    Schema.refine((_): _ is never => false),
  );

const TextBlock = Schema.Struct({ type: Schema.Literal("text"), text: Schema.String });

const ImageSource = Schema.Union([
  Schema.Struct({ type: Schema.Literal("base64"), media_type: Schema.String, data: Schema.String }),
  Schema.Struct({ type: Schema.Literal("url"), url: Schema.String }),
  Schema.Struct({ type: Schema.Literal("file"), file_id: Schema.String }),
  unknownTag("type", ["base64", "url", "file"]),
]);
const ImageBlock = Schema.Struct({ type: Schema.Literal("image"), source: ImageSource });

/** Documents: plain-text sources become text; PDFs and files are refused with the field named. */
const DocumentBlock = Schema.Struct({
  type: Schema.Literal("document"),
  source: Schema.Struct({
    type: Schema.String,
    media_type: Schema.optional(Schema.String),
    data: Schema.optional(Schema.String),
    content: Schema.optional(Schema.Unknown),
  }),
  title: Schema.optional(Schema.NullOr(Schema.String)),
});

const ToolReferenceBlock = Schema.Struct({
  type: Schema.Literal("tool_reference"),
  tool_name: Schema.String,
});

/** Server-tool results and the like: accepted in history, never offered, shown to nobody. */
const IGNORED_BLOCKS = [
  "redacted_thinking",
  "server_tool_use",
  "web_search_tool_result",
  "web_fetch_tool_result",
  "code_execution_tool_result",
  "mcp_tool_use",
  "mcp_tool_result",
  "container_upload",
  "search_result",
] as const;
const IgnoredBlock = Schema.Struct({ type: Schema.Literals(IGNORED_BLOCKS) });

const ToolResultContent = Schema.Union([
  Schema.String,
  Schema.Array(
    Schema.Union([
      TextBlock,
      ImageBlock,
      DocumentBlock,
      ToolReferenceBlock,
      IgnoredBlock,
      unknownTag("type", ["text", "image", "document", "tool_reference", ...IGNORED_BLOCKS]),
    ]),
  ),
]);

const ToolResultBlock = Schema.Struct({
  type: Schema.Literal("tool_result"),
  tool_use_id: Schema.String,
  content: Schema.optional(ToolResultContent),
  is_error: Schema.optional(Schema.Boolean),
});

const ToolUseBlock = Schema.Struct({
  type: Schema.Literal("tool_use"),
  id: Schema.String,
  name: Schema.String,
  input: Schema.Unknown,
});

const ThinkingBlock = Schema.Struct({
  type: Schema.Literal("thinking"),
  thinking: Schema.String,
  signature: Schema.optional(Schema.String),
});

/**
 * A compaction block the gateway returned, sent back: its summary stands for everything before it
 * (null content: a failed compaction, a no-op). `encrypted_content`, `signature` and the like are
 * accepted and not read (the gateway's summaries are plain text).
 */
const CompactionBlock = Schema.Struct({
  type: Schema.Literal("compaction"),
  content: Schema.optional(Schema.NullOr(Schema.String)),
});

const CONTENT_TYPES = [
  "text",
  "image",
  "document",
  "tool_use",
  "tool_result",
  "thinking",
  "compaction",
  ...IGNORED_BLOCKS,
] as const;

export const ContentBlock = Schema.Union([
  TextBlock,
  ImageBlock,
  DocumentBlock,
  ToolUseBlock,
  ToolResultBlock,
  ThinkingBlock,
  CompactionBlock,
  IgnoredBlock,
  unknownTag("type", CONTENT_TYPES),
]);

const Content = Schema.Union([Schema.String, Schema.Array(ContentBlock)]);

/** Claude Code's system-role messages may also hold tool-change blocks; only their text is used. */
const SystemContent = Schema.Union([
  Schema.String,
  Schema.Array(Schema.Struct({ type: Schema.String, text: Schema.optional(Schema.String) })),
]);

export const MessageParam = Schema.Union([
  Schema.Struct({ role: Schema.Literal("user"), content: Content }),
  Schema.Struct({ role: Schema.Literal("assistant"), content: Content }),
  Schema.Struct({ role: Schema.Literal("system"), content: SystemContent }),
  unknownTag("role", ["user", "assistant", "system"]),
]);

export const ToolParam = Schema.Struct({
  /** Absent or `custom` for client tools; anything else is a server tool (web search, …). */
  type: Schema.optional(Schema.NullOr(Schema.String)),
  name: Schema.String,
  description: Schema.optional(Schema.String),
  input_schema: Schema.optional(Schema.Record(Schema.String, Schema.Unknown)),
  defer_loading: Schema.optional(Schema.Boolean),
  strict: Schema.optional(Schema.Boolean),
  /** The web search server tool's settings (`web_search_20250305`). */
  max_uses: Schema.optional(Schema.NullOr(Schema.Int.check(Schema.isGreaterThan(0)))),
  allowed_domains: Schema.optional(Schema.NullOr(Schema.Array(Schema.String))),
  blocked_domains: Schema.optional(Schema.NullOr(Schema.Array(Schema.String))),
});

const ParallelFlag = { disable_parallel_tool_use: Schema.optional(Schema.Boolean) };
export const ToolChoiceParam = Schema.Union([
  Schema.Struct({ type: Schema.Literal("auto"), ...ParallelFlag }),
  Schema.Struct({ type: Schema.Literal("any"), ...ParallelFlag }),
  Schema.Struct({ type: Schema.Literal("tool"), name: Schema.String, ...ParallelFlag }),
  Schema.Struct({ type: Schema.Literal("none") }),
  unknownTag("type", ["auto", "any", "tool", "none"]),
]);

/** `enabled` (with a budget), `adaptive` and `disabled`; `display` and future fields are ignored. */
const ThinkingParam = Schema.Struct({
  type: Schema.Literals(["enabled", "adaptive", "disabled"]),
  budget_tokens: Schema.optional(Schema.Int.check(Schema.isGreaterThanOrEqualTo(0))),
});

const PositiveInt = Schema.Int.check(Schema.isGreaterThan(0));

const Fields = {
  model: ModelName,
  messages: Schema.Array(MessageParam),
  system: Schema.optional(Schema.Union([Schema.String, Schema.Array(TextBlock)])),
  tools: Schema.optional(Schema.Array(ToolParam)),
  tool_choice: Schema.optional(ToolChoiceParam),
  thinking: Schema.optional(ThinkingParam),
  output_config: Schema.optional(Schema.Struct({ effort: Schema.optional(Schema.String) })),
};

/**
 * `context_management.edits`: each edit an object with a `type`; the compact edit's own fields are
 * checked where it is read (compact-edit.ts), the other edits' are not read at all.
 */
const ContextManagement = Schema.Struct({
  edits: Schema.optional(
    Schema.NullOr(
      Schema.Array(
        Schema.StructWithRest(Schema.Struct({ type: Schema.String }), [
          Schema.Record(Schema.String, Schema.Unknown),
        ]),
      ),
    ),
  ),
});

/** On-demand compaction (`compaction: {type: "summarize"}`): the request compacts and nothing else. */
const CompactionParam = Schema.Struct({
  type: Schema.Literal("summarize"),
  instructions: Schema.optional(Schema.NullOr(Schema.String)),
});

export const MessagesRequest = Schema.Struct({
  ...Fields,
  max_tokens: PositiveInt,
  stream: Schema.optional(Schema.Boolean),
  stop_sequences: Schema.optional(Schema.Array(Schema.String)),
  // Accepted and type-checked; a text-only backend has no use for them (see docs/anthropic.md).
  temperature: Schema.optional(Schema.Number),
  top_p: Schema.optional(Schema.Number),
  top_k: Schema.optional(Schema.Number),
  metadata: Schema.optional(Schema.Record(Schema.String, Schema.Unknown)),
  context_management: Schema.optional(Schema.NullOr(ContextManagement)),
  compaction: Schema.optional(Schema.NullOr(CompactionParam)),
});

/** `count_tokens` takes the same conversation without `max_tokens` or sampling settings. */
export const CountTokensRequest = Schema.Struct(Fields);

export type MessagesRequest = typeof MessagesRequest.Type;
export type MessageParam = typeof MessageParam.Type;
export type ContentBlock = typeof ContentBlock.Type;
export type ToolParam = typeof ToolParam.Type;
export type ToolChoiceParam = typeof ToolChoiceParam.Type;
