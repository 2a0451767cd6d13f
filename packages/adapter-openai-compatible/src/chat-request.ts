import {
  asNativeFunction,
  type BackendRequest,
  type ContentPart,
  GatewayError,
  type PromptMessage,
  type ToolChoice,
  type ToolPolicy,
} from "@proxy/core";

type ChatContent = string | Array<Record<string, unknown>>;

interface ChatToolCall {
  readonly id: string;
  readonly type: "function";
  readonly function: { readonly name: string; readonly arguments: string };
}

export type ChatMessage =
  | { readonly role: "system" | "user" | "assistant"; readonly content: ChatContent }
  /** A native turn's earlier function calls. */
  | { readonly role: "assistant"; readonly content: null; readonly tool_calls: ReadonlyArray<ChatToolCall> }
  /** …and their outputs. */
  | { readonly role: "tool"; readonly tool_call_id: string; readonly content: string };

/** Plain strings where possible: many local servers' templates only handle string content. */
const toContent = (parts: ReadonlyArray<ContentPart>, textOnly: boolean): ChatContent | undefined => {
  if (parts.every((p) => p.type === "text")) {
    const text = parts.map((p) => p.text).join("");
    return text === "" ? undefined : text;
  }
  const content = parts.flatMap((p): Array<Record<string, unknown>> => {
    if (p.type === "text") return [{ type: "text", text: p.text }];
    if (textOnly) return [];
    // A remote URL would make the model server fetch whatever a client names (vLLM does): inline only.
    if (!/^data:/i.test(p.url))
      throw new GatewayError(
        "invalid_request",
        "This model only accepts inline images (data: URLs); fetch the image and send it base64-encoded.",
        { param: "image_url", code: "invalid_image_url" },
      );
    return [{ type: "image_url", image_url: { url: p.url, ...(p.detail ? { detail: p.detail } : {}) } }];
  });
  return content.length === 0 ? undefined : content;
};

/**
 * History keeps its roles; `developer` becomes `system`, the role every chat template knows.
 * Assistant turns carry text only (images have no assistant form on this wire). A native turn's
 * calls and outputs become `tool_calls` and `tool` messages.
 */
const toMessage = (message: PromptMessage): ChatMessage | undefined => {
  if ("toolCalls" in message)
    return {
      role: "assistant",
      content: null,
      tool_calls: message.toolCalls.map((c) => ({
        id: c.callId,
        type: "function",
        function: { name: c.name, arguments: c.arguments },
      })),
    };
  if (message.role === "tool") return { role: "tool", tool_call_id: message.callId, content: message.output };
  const content = toContent(message.content, message.role === "assistant");
  if (content === undefined) return undefined;
  return { role: message.role === "developer" ? "system" : message.role, content };
};

/** The rendered turn as Chat Completions `messages`: the core's instructions first, then history, then input. */
export const toChatMessages = (request: BackendRequest): ChatMessage[] => {
  const messages: ChatMessage[] = [];
  if (request.instructions !== "") messages.push({ role: "system", content: request.instructions });
  for (const m of request.history) {
    const message = toMessage(m);
    if (message) messages.push(message);
  }
  const input = toMessage({ role: "user", content: request.input });
  if (input) messages.push(input);
  return messages;
};

const toToolChoice = (choice: ToolChoice) =>
  choice.type === "tool" ? { type: "function", function: { name: choice.name } } : choice.type;

/** Native mode: the client's tools, choice and parallelism, as they are. */
const nativeTools = (policy: ToolPolicy) => ({
  // A custom tool goes upstream as a function of one string `input` (`asNativeFunction`).
  tools: policy.tools.map(asNativeFunction).map((t) => ({
    type: "function",
    function: {
      name: t.name,
      ...(t.description === undefined ? {} : { description: t.description }),
      parameters: t.parameters,
      ...(t.strict ? { strict: true } : {}),
    },
  })),
  tool_choice: toToolChoice(policy.choice),
  // Sent only when it restricts: several servers reject the field they do not know.
  ...(policy.parallel ? {} : { parallel_tool_calls: false }),
});

/**
 * The streamed `POST /chat/completions` body: prompt mode sends no `tools` (the manifest is in the
 * instructions); a native turn (`request.tools`) sends them. Usage is always requested.
 */
export const toChatBody = (
  request: BackendRequest,
): { readonly messages: ChatMessage[]; readonly [field: string]: unknown } => ({
  model: request.model,
  messages: toChatMessages(request),
  stream: true,
  stream_options: { include_usage: true },
  ...(request.tools === undefined ? {} : nativeTools(request.tools)),
  ...(request.maxOutputTokens === undefined ? {} : { max_tokens: request.maxOutputTokens }),
  ...reasoningEffort(request.reasoningEffort),
});

/**
 * Servers that take `reasoning_effort` (vLLM, Ollama, llama.cpp for some models) know only
 * low/medium/high and may refuse anything else: the gateway's wider scale is folded onto those.
 */
const reasoningEffort = (effort: BackendRequest["reasoningEffort"]) => {
  switch (effort) {
    case undefined:
    case "none":
      return {};
    case "minimal":
    case "low":
      return { reasoning_effort: "low" };
    case "medium":
      return { reasoning_effort: "medium" };
    default:
      return { reasoning_effort: "high" };
  }
};

/** Everything the prompt says, for estimating input tokens when the upstream reports none. */
export const promptText = (messages: ReadonlyArray<ChatMessage>): string =>
  messages
    .map((m) => {
      if ("tool_calls" in m)
        return m.tool_calls.map((c) => `${c.function.name}(${c.function.arguments})`).join("\n");
      if (typeof m.content === "string") return m.content;
      return (m.content ?? []).map((p) => (typeof p.text === "string" ? p.text : "")).join("");
    })
    .join("\n");
