import { createHash, type Hash } from "node:crypto";
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
const canonicalParts = (parts: ReadonlyArray<ContentPart>): Array<string | readonly [string, string]> => {
  const out: Array<string | readonly [string, string]> = [];
  let text: string | undefined;
  for (const p of parts) {
    if (p.type === "text") text = (text ?? "") + p.text;
    else {
      if (text !== undefined) out.push(text);
      text = undefined;
      out.push([p.url, p.detail ?? "auto"]);
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
const assistantText = (text: string) => text.replace(/\s+/g, " ").trim();

/**
 * One field, length first, so no field's content can pass for a boundary. Written straight into
 * the hash: every turn hashes the whole history, and a JSON rendering of it first cost twice the
 * hashing. Text arrives well-formed (the surfaces refuse lone surrogates), so its UTF-8 is exact.
 */
const field = (hash: Hash, value: string) => hash.update(`${value.length}:`).update(value);

const hashMessage = (hash: Hash, m: PromptMessage) => {
  if ("toolCalls" in m) {
    hash.update(`calls ${m.toolCalls.length}\n`);
    for (const c of m.toolCalls) field(field(field(hash, c.callId), c.name), c.arguments);
  } else if (m.role === "tool") field(field(hash.update("output\n"), m.callId), m.output);
  else {
    const parts = canonicalParts(m.content);
    hash.update(`message ${m.role} ${parts.length}\n`);
    for (const p of parts)
      if (typeof p !== "string") field(field(hash.update("image\n"), p[0]), p[1]);
      else field(hash, m.role === "assistant" ? assistantText(p) : p);
  }
};

export const extendKey = (key: ConversationKey, message: PromptMessage): ConversationKey => {
  const hash = createHash("sha256").update(key).update("\n");
  hashMessage(hash, message);
  return hash.digest("base64url");
};

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
