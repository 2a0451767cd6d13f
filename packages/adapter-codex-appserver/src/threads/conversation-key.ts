import { createHash } from "node:crypto";
import type { ContentPart, NativeToolCall, PromptMessage } from "@proxy/core";

/**
 * Conversation keys: a SHA-256 chain over the conversation as core hands it to the backend
 * (`BackendRequest.history`, core's canonical types), so what a client moves between turns
 * without changing the conversation (Claude Code's `cache_control` markers, JSON key order,
 * whitespace between wire fields) never reaches it, while any change to a message's role, text,
 * image, call id, tool name, arguments or tool output does. `k[i]` keys the first `i` items;
 * the chain starts from the caller and the thread config, so no other caller or config can match.
 */
export type ConversationKey = string;

/** One content message's parts with adjacent text joined (core may split a rendered message). */
const canonicalParts = (parts: ReadonlyArray<ContentPart>): unknown[] => {
  const out: unknown[] = [];
  let text: string | undefined;
  for (const p of parts) {
    if (p.type === "text") text = (text ?? "") + p.text;
    else {
      if (text !== undefined) out.push(text);
      text = undefined;
      out.push(["image", p.url, p.detail ?? "auto"]);
    }
  }
  if (text !== undefined) out.push(text);
  return out;
};

/**
 * The model's own text is compared with runs of whitespace collapsed: in prompt mode the client
 * sends back the text and the parsed calls, which core re-renders joined by a newline where the
 * model may have written a space or nothing. Every other character counts.
 */
const assistantText = (part: unknown) => (typeof part === "string" ? part.replace(/\s+/g, " ").trim() : part);

const canonical = (m: PromptMessage): string => {
  if ("toolCalls" in m)
    return JSON.stringify(["calls", m.toolCalls.map((c) => [c.callId, c.name, c.arguments])]);
  if (m.role === "tool") return JSON.stringify(["output", m.callId, m.output]);
  const parts = canonicalParts(m.content);
  return JSON.stringify(["message", m.role, m.role === "assistant" ? parts.map(assistantText) : parts]);
};

export const extendKey = (key: ConversationKey, message: PromptMessage): ConversationKey =>
  createHash("sha256").update(key).update("\n").update(canonical(message)).digest("base64url");

export const rootKey = (partition: string, config: unknown): ConversationKey =>
  createHash("sha256")
    .update(JSON.stringify([partition, config]))
    .digest("base64url");

/** `keys[i]` = the key of the first `i` messages (`keys[0]` is the root). */
export const prefixKeys = (
  root: ConversationKey,
  history: ReadonlyArray<PromptMessage>,
): ConversationKey[] => {
  const keys = [root];
  for (const m of history) keys.push(extendKey(keys[keys.length - 1] as string, m));
  return keys;
};

/** The messages a turn's reply adds, in the shape core renders them when the client sends them back. */
export const replyMessages = (reply: {
  readonly text: string;
  readonly calls: ReadonlyArray<NativeToolCall>;
}): PromptMessage[] => [
  ...(reply.text === ""
    ? []
    : [{ role: "assistant" as const, content: [{ type: "text" as const, text: reply.text }] }]),
  ...(reply.calls.length === 0 ? [] : [{ role: "assistant" as const, toolCalls: reply.calls }]),
];
