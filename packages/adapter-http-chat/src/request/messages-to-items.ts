import { type ContentPart, type ConversationItem, customCallArguments, invalidRequest } from "@proxy/core";
import type { ChatMessage } from "./request-schema.js";

type TextOnly = string | ReadonlyArray<{ readonly type: "text"; readonly text: string }>;
type UserContent = Extract<ChatMessage, { role: "user" }>["content"];
type AssistantContent = NonNullable<Extract<ChatMessage, { role: "assistant" }>["content"]>;

const joinText = (content: TextOnly): string =>
  typeof content === "string" ? content : content.map((p) => p.text).join("");

const textParts = (text: string): ContentPart[] => (text === "" ? [] : [{ type: "text", text }]);

const userParts = (content: UserContent, i: number): ContentPart[] => {
  if (typeof content === "string") return textParts(content);
  return content.map((part, j): ContentPart => {
    if (part.type === "text") return { type: "text", text: part.text };
    const image = part.image_url;
    const path = `messages[${i}].content[${j}].image_url`;
    if (typeof image === "string") return { type: "image", url: image, path };
    return { type: "image", url: image.url, detail: image.detail ?? undefined, path };
  });
};

const assistantText = (content: AssistantContent): string =>
  typeof content === "string"
    ? content
    : content.map((p) => (p.type === "text" ? p.text : p.refusal)).join("");

/**
 * Chat `messages` → the core's conversation items, order preserved. Assistant `tool_calls` are echoes
 * and never rejected; `tool` results take their name from the call they answer when they omit it.
 * Legacy `function_call`/`role:"function"` pairs get synthetic call ids (`call_fn_<message index>`)
 * and a result is matched to the latest unanswered call of the same name. A `tool` message must
 * answer an earlier call (as OpenAI requires).
 */
type AssistantToolCall = NonNullable<Extract<ChatMessage, { role: "assistant" }>["tool_calls"]>[number];

/** An echoed call: `{type:"custom", custom:{name, input}}` carries raw input, else `function` its JSON arguments. */
const toolCallItem = (
  call: AssistantToolCall,
  at: string,
): Extract<ConversationItem, { type: "tool-call" }> => {
  if (call.type === "custom") {
    if (call.custom === undefined)
      throw invalidRequest(`Missing required parameter: '${at}.custom'.`, `${at}.custom`);
    const { name, input } = call.custom;
    return { type: "tool-call", callId: call.id, name, arguments: customCallArguments(input), custom: true };
  }
  if (call.function === undefined)
    throw invalidRequest(`Missing required parameter: '${at}.function'.`, `${at}.function`);
  return { type: "tool-call", callId: call.id, name: call.function.name, arguments: call.function.arguments };
};

export const messagesToItems = (messages: ReadonlyArray<ChatMessage>): ConversationItem[] => {
  const items: ConversationItem[] = [];
  const callNames = new Map<string, string>();
  const unansweredLegacy: Array<{ callId: string; name: string }> = [];

  messages.forEach((message, i) => {
    switch (message.role) {
      case "system":
      case "developer":
        items.push({ type: "message", role: message.role, content: textParts(joinText(message.content)) });
        return;
      case "user":
        items.push({ type: "message", role: "user", content: userParts(message.content, i) });
        return;
      case "assistant": {
        const text = message.content == null ? "" : assistantText(message.content);
        // Copilot sends `content: ""` next to tool_calls; an empty message would only add noise.
        if (text !== "" || (message.tool_calls == null && message.function_call == null)) {
          items.push({ type: "message", role: "assistant", content: textParts(text) });
        }
        (message.tool_calls ?? []).forEach((call, j) => {
          const item = toolCallItem(call, `messages[${i}].tool_calls[${j}]`);
          callNames.set(call.id, item.name);
          items.push(item);
        });
        if (message.function_call != null) {
          const callId = `call_fn_${i}`;
          unansweredLegacy.push({ callId, name: message.function_call.name });
          items.push({ type: "tool-call", callId, ...message.function_call });
        }
        return;
      }
      case "tool":
        if (!callNames.has(message.tool_call_id))
          throw invalidRequest(
            `Invalid 'messages[${i}].tool_call_id': no earlier assistant message has a tool call with id ${JSON.stringify(message.tool_call_id)}.`,
            `messages[${i}].tool_call_id`,
          );
        items.push({
          type: "tool-result",
          callId: message.tool_call_id,
          name: message.name ?? callNames.get(message.tool_call_id),
          output: joinText(
            typeof message.content === "string"
              ? message.content
              : message.content.filter((p) => p.type === "text"),
          ),
          images: userParts(message.content, i).filter((p) => p.type === "image"),
        });
        return;
      case "function": {
        const at = unansweredLegacy.findLastIndex((c) => c.name === message.name);
        const callId = at >= 0 ? unansweredLegacy.splice(at, 1)[0]!.callId : `call_fn_${i}`;
        items.push({ type: "tool-result", callId, name: message.name, output: message.content ?? "" });
        return;
      }
    }
  });
  return items;
};
