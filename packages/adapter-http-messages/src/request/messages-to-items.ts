import { type ContentPart, type ConversationItem, invalidRequest } from "@proxy/core";
import { renderCompactionSummary } from "@proxy/core/gateway";
import { callIdOf } from "../response/message-shapes.js";
import type { ContentBlock, MessageParam } from "./request-schema.js";

type Block = ContentBlock;
type ImageBlock = Extract<Block, { type: "image" }>;
type DocumentBlock = Extract<Block, { type: "document" }>;
type ToolResultBlock = Extract<Block, { type: "tool_result" }>;

export interface DecodedMessages {
  readonly items: ReadonlyArray<ConversationItem>;
  /** Tools named by `tool_reference` blocks: deferred tools the client has loaded. */
  readonly referencedTools: ReadonlySet<string>;
  /** The text of `role:"system"` entries, in order: they extend the system prompt. */
  readonly systemTexts: ReadonlyArray<string>;
}

const imagePart = (block: ImageBlock, at: string): ContentPart => {
  const source = block.source;
  if (source.type === "base64")
    return { type: "image", url: `data:${source.media_type};base64,${source.data}` };
  if (source.type === "url") return { type: "image", url: source.url };
  throw invalidRequest(
    `Invalid value for '${at}.source': file sources are not supported by this gateway; send the image as base64 or a URL.`,
    `${at}.source`,
  );
};

/** Plain-text documents are text for the model; other sources cannot reach a text-only backend. */
const documentText = (block: DocumentBlock, at: string): string => {
  const { source } = block;
  const title = block.title ? `${block.title}\n` : "";
  if (source.type === "text" && source.data !== undefined) return `${title}${source.data}`;
  if (source.type === "content" && typeof source.content === "string") return `${title}${source.content}`;
  if (source.type === "content" && Array.isArray(source.content)) {
    const texts = source.content.flatMap((b: unknown) =>
      typeof b === "object" && b !== null && typeof (b as { text?: unknown }).text === "string"
        ? [(b as { text: string }).text]
        : [],
    );
    return `${title}${texts.join("\n")}`;
  }
  throw invalidRequest(
    `Invalid value for '${at}.source': documents of source type '${source.type}' are not supported by this gateway; send plain text.`,
    `${at}.source`,
  );
};

/**
 * A tool result's content as the text the model reads. `tool_reference` blocks (Claude Code's
 * ToolSearch) say which tool was loaded; images go after the result as a user message.
 */
const toolResultOutput = (
  block: ToolResultBlock,
  at: string,
  referenced: Set<string>,
  images: ContentPart[],
): string => {
  const content = block.content ?? "";
  let text: string;
  if (typeof content === "string") text = content;
  else {
    const parts: string[] = [];
    content.forEach((part, k) => {
      const partAt = `${at}.content[${k}]`;
      if (part.type === "text") parts.push(part.text);
      else if (part.type === "tool_reference") {
        referenced.add(part.tool_name);
        parts.push(`Tool loaded: ${part.tool_name} (now available to call).`);
      } else if (part.type === "image") images.push(imagePart(part, partAt));
      else if (part.type === "document") parts.push(documentText(part, partAt));
    });
    text = parts.join("\n");
  }
  return block.is_error === true ? `Error: ${text}` : text;
};

const textOf = (content: Extract<MessageParam, { role: "system" }>["content"]): string =>
  typeof content === "string"
    ? content
    : content.flatMap((b) => (b.type === "text" && b.text !== undefined ? [b.text] : [])).join("\n");

/**
 * Messages → core's conversation items, order preserved. Within a message, runs of text/image
 * blocks become one message item; `tool_use` blocks are echoed calls (their ids are the client's,
 * `toolu_…`), `tool_result` blocks are results, `thinking` is echoed reasoning, server-tool blocks
 * and `redacted_thinking` are dropped; a `compaction` block drops everything before it and stands
 * for it as its summary, a user message (as the answer after the compaction saw it). `role:"system"` entries extend the system prompt wherever they
 * are: Claude Code puts its environment note right after the user's prompt, and left in place it
 * would push that prompt out of the backend turn's input.
 */
export const messagesToItems = (messages: ReadonlyArray<MessageParam>): DecodedMessages => {
  const items: ConversationItem[] = [];
  const systemTexts: string[] = [];
  const referenced = new Set<string>();
  const callNames = new Map<string, string>();

  messages.forEach((message, i) => {
    if (message.role === "system") {
      const text = textOf(message.content);
      if (text !== "") systemTexts.push(text);
      return;
    }
    const role = message.role;
    if (typeof message.content === "string") {
      if (message.content !== "")
        items.push({ type: "message", role, content: [{ type: "text", text: message.content }] });
      return;
    }
    let run: ContentPart[] = [];
    const flush = () => {
      if (run.length > 0) items.push({ type: "message", role, content: run });
      run = [];
    };
    message.content.forEach((block, j) => {
      const at = `messages[${i}].content[${j}]`;
      switch (block.type) {
        case "text":
          if (block.text !== "") run.push({ type: "text", text: block.text });
          return;
        case "image":
          run.push(imagePart(block, at));
          return;
        case "document":
          run.push({ type: "text", text: documentText(block, at) });
          return;
        case "thinking":
          flush();
          if (block.thinking !== "") items.push({ type: "reasoning", text: block.thinking });
          return;
        case "tool_use": {
          flush();
          callNames.set(block.id, block.name);
          const args = block.input === undefined ? "{}" : JSON.stringify(block.input);
          items.push({ type: "tool-call", callId: callIdOf(block.id), name: block.name, arguments: args });
          return;
        }
        case "compaction":
          // Anthropic's rule: the summary replaces every block before it (the system prompt stays).
          if (block.content === undefined || block.content === null) return;
          if (block.content === "")
            throw invalidRequest(
              `Invalid value for '${at}.content': a compaction's summary must not be empty.`,
              `${at}.content`,
            );
          run = [];
          items.length = 0;
          items.push({
            type: "message",
            role: "user",
            content: [{ type: "text", text: renderCompactionSummary(block.content) }],
          });
          return;
        case "tool_result": {
          flush();
          const images: ContentPart[] = [];
          const output = toolResultOutput(block, at, referenced, images);
          const name = callNames.get(block.tool_use_id);
          items.push({ type: "tool-result", callId: callIdOf(block.tool_use_id), name, output });
          if (images.length > 0) items.push({ type: "message", role: "user", content: images });
          return;
        }
        default:
          return;
      }
    });
    flush();
  });
  return { items, referencedTools: referenced, systemTexts };
};
