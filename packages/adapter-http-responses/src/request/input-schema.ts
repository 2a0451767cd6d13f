import * as Schema from "effect/Schema";

/**
 * Responses `input` items as real clients send them (openai-node, Agents SDK, Vercel AI SDK,
 * LangChain, codex exec 0.169). Unknown keys are stripped, so ids we never issued (`msg_…`,
 * `fc_…`, `fco_…`), `status`, `phase` and codex's `internal_chat_message_metadata_passthrough`
 * are accepted and ignored.
 */

const ImageDetail = Schema.optional(Schema.NullOr(Schema.String));

export const InputTextPart = Schema.Struct({ type: Schema.Literal("input_text"), text: Schema.String });
export const OutputTextPart = Schema.Struct({ type: Schema.Literal("output_text"), text: Schema.String });
export const RefusalPart = Schema.Struct({ type: Schema.Literal("refusal"), refusal: Schema.String });
/** Only inline images (`image_url`: data URL or http(s) URL); `file_id` needs a files API we do not have. */
export const InputImagePart = Schema.Struct({
  type: Schema.Literal("input_image"),
  image_url: Schema.String,
  detail: ImageDetail,
});

export const MessageContentPart = Schema.Union([InputTextPart, InputImagePart, OutputTextPart, RefusalPart]);
export type MessageContentPart = typeof MessageContentPart.Type;

/** Content parts by `type`, decoded one by one so errors name `content[i].type` or the bad field. */
export const PART_SCHEMAS = {
  input_text: InputTextPart,
  input_image: InputImagePart,
  output_text: OutputTextPart,
  refusal: RefusalPart,
} as const;

/** `content` parts stay raw here and are decoded through PART_SCHEMAS (decode-input.ts). */
export const MessageItem = Schema.Struct({
  type: Schema.optional(Schema.Literal("message")),
  role: Schema.Literals(["user", "assistant", "system", "developer"]),
  content: Schema.Union([Schema.String, Schema.Array(Schema.Unknown)]),
});

export const FunctionCallItem = Schema.Struct({
  type: Schema.Literal("function_call"),
  call_id: Schema.String,
  name: Schema.String,
  arguments: Schema.String,
});

/** Tool output: a string, or content parts (text and images kept; files and file-id images become placeholders). */
const ToolOutput = Schema.Union([
  Schema.String,
  Schema.Array(
    Schema.Union([
      InputTextPart,
      OutputTextPart,
      InputImagePart,
      Schema.Struct({ type: Schema.Literals(["input_image", "input_file"]) }),
    ]),
  ),
]);

export const FunctionCallOutputItem = Schema.Struct({
  type: Schema.Literal("function_call_output"),
  call_id: Schema.String,
  output: ToolOutput,
});

export const CustomToolCallItem = Schema.Struct({
  type: Schema.Literal("custom_tool_call"),
  call_id: Schema.String,
  name: Schema.String,
  input: Schema.String,
});

export const CustomToolCallOutputItem = Schema.Struct({
  type: Schema.Literal("custom_tool_call_output"),
  call_id: Schema.String,
  output: ToolOutput,
});

const TextEntry = Schema.Struct({ text: Schema.String });

/** Echoed reasoning: codex sends `content: null` and an `encrypted_content` blob. */
export const ReasoningItem = Schema.Struct({
  type: Schema.Literal("reasoning"),
  summary: Schema.optional(Schema.NullOr(Schema.Array(TextEntry))),
  content: Schema.optional(Schema.NullOr(Schema.Array(TextEntry))),
  encrypted_content: Schema.optional(Schema.NullOr(Schema.String)),
});

/** codex exec's carrier of tools for catalog models (`use_responses_lite`); tools decoded later. */
export const AdditionalToolsItem = Schema.Struct({
  type: Schema.Literal("additional_tools"),
  tools: Schema.Array(Schema.Unknown),
});

/** A compaction we issued earlier: `encrypted_content` holds our summary text. */
export const CompactionItem = Schema.Struct({
  type: Schema.Literal("compaction"),
  encrypted_content: Schema.String,
});

/** codex remote compaction v2: "answer this request with exactly one compaction item". */
export const CompactionTriggerItem = Schema.Struct({ type: Schema.Literal("compaction_trigger") });

/** A reference to an item we issued earlier (resolved from IssuedItems in decode-input.ts). */
export const ItemReference = Schema.Struct({ type: Schema.Literal("item_reference"), id: Schema.String });

/**
 * Items of hosted tools (web search, file search, computer use, MCP, …) that a history may carry
 * from another provider. The backend never produced them; they are accepted and not rendered.
 */
export const HOSTED_ITEM_TYPES = [
  "web_search_call",
  "file_search_call",
  "computer_call",
  "computer_call_output",
  "code_interpreter_call",
  "image_generation_call",
  "local_shell_call",
  "local_shell_call_output",
  "shell_call",
  "shell_call_output",
  "apply_patch_call",
  "apply_patch_call_output",
  "mcp_list_tools",
  "mcp_approval_request",
  "mcp_approval_response",
  "mcp_call",
  "tool_search_call",
  "tool_search_output",
] as const;

export const HostedToolItem = Schema.Struct({ type: Schema.Literals(HOSTED_ITEM_TYPES) });

/** Input items by `type` (a missing `type` means `message`), decoded one by one for precise errors. */
export const ITEM_SCHEMAS = {
  message: MessageItem,
  function_call: FunctionCallItem,
  function_call_output: FunctionCallOutputItem,
  custom_tool_call: CustomToolCallItem,
  custom_tool_call_output: CustomToolCallOutputItem,
  reasoning: ReasoningItem,
  additional_tools: AdditionalToolsItem,
  compaction: CompactionItem,
  compaction_trigger: CompactionTriggerItem,
  item_reference: ItemReference,
  ...Object.fromEntries(HOSTED_ITEM_TYPES.map((type) => [type, HostedToolItem])),
} as const;

/** A decoded input item; message content parts are decoded too. */
export type InputItem =
  | (Omit<typeof MessageItem.Type, "content"> & {
      readonly content: string | ReadonlyArray<MessageContentPart>;
    })
  | typeof FunctionCallItem.Type
  | typeof FunctionCallOutputItem.Type
  | typeof CustomToolCallItem.Type
  | typeof CustomToolCallOutputItem.Type
  | typeof ReasoningItem.Type
  | typeof AdditionalToolsItem.Type
  | typeof CompactionItem.Type
  | typeof CompactionTriggerItem.Type
  | typeof ItemReference.Type
  | typeof HostedToolItem.Type;

export type Input = string | ReadonlyArray<InputItem>;

/** `input` before item-by-item decoding: a string or an array. */
export const RawInput = Schema.Union([Schema.String, Schema.Array(Schema.Unknown)]);
