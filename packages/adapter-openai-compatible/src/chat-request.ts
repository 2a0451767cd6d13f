import type { BackendRequest, ContentPart, PromptMessage } from "@proxy/core";

type ChatContent = string | Array<Record<string, unknown>>;

export interface ChatMessage {
  readonly role: "system" | "user" | "assistant";
  readonly content: ChatContent;
}

/** Plain strings where possible: many local servers' templates only handle string content. */
const toContent = (parts: ReadonlyArray<ContentPart>, textOnly: boolean): ChatContent | undefined => {
  if (parts.every((p) => p.type === "text")) {
    const text = parts.map((p) => p.text).join("");
    return text === "" ? undefined : text;
  }
  const content = parts.flatMap((p): Array<Record<string, unknown>> => {
    if (p.type === "text") return [{ type: "text", text: p.text }];
    if (textOnly) return [];
    return [{ type: "image_url", image_url: { url: p.url, ...(p.detail ? { detail: p.detail } : {}) } }];
  });
  return content.length === 0 ? undefined : content;
};

/**
 * History keeps its roles; `developer` becomes `system`, the role every chat template knows.
 * Assistant turns carry text only (images have no assistant form on this wire).
 */
const toMessage = (message: PromptMessage): ChatMessage | undefined => {
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

/** The streamed `POST /chat/completions` body for prompt mode: no `tools`, usage requested. */
export const toChatBody = (
  request: BackendRequest,
): { readonly messages: ChatMessage[]; readonly [field: string]: unknown } => ({
  model: request.model,
  messages: toChatMessages(request),
  stream: true,
  stream_options: { include_usage: true },
  ...(request.maxOutputTokens === undefined ? {} : { max_tokens: request.maxOutputTokens }),
  ...(request.reasoningEffort === undefined ? {} : { reasoning_effort: request.reasoningEffort }),
});

/** Everything the prompt says, for estimating input tokens when the upstream reports none. */
export const promptText = (messages: ReadonlyArray<ChatMessage>): string =>
  messages
    .map((m) =>
      typeof m.content === "string"
        ? m.content
        : m.content.map((p) => (typeof p.text === "string" ? p.text : "")).join(""),
    )
    .join("\n");
