import type { BackendRequest, ContentPart, ConversationItem, PromptMessage } from "@proxy/core";
import type { Message, Prompt, ToolResultOutput } from "./sdk-types.js";

type UserPart = Extract<Message, { role: "user" }>["content"][number];
type AssistantPart = Extract<Message, { role: "assistant" }>["content"][number];

/**
 * The caller's own non-text parts (files, images, provider parts), carried through core's rendering
 * as opaque image references and put back unchanged: core renders text and places parts, it never
 * needs to read them.
 */
export class PartTable {
  private readonly parts = new Map<string, UserPart | AssistantPart>();

  ref(part: UserPart | AssistantPart): ContentPart {
    const url = `ai-sdk-part:${this.parts.size}`;
    this.parts.set(url, part);
    return { type: "image", url };
  }

  get(url: string): UserPart | AssistantPart | undefined {
    return this.parts.get(url);
  }
}

/** A tool's output as the model reads it: text as is, anything else as JSON. */
export const toolOutputText = (output: ToolResultOutput): string => {
  switch (output.type) {
    case "text":
      return output.value;
    case "json":
      return JSON.stringify(output.value);
    case "error-text":
      return `Error: ${output.value}`;
    case "error-json":
      return `Error: ${JSON.stringify(output.value)}`;
    case "execution-denied":
      return output.reason === undefined ? "Execution denied." : `Execution denied: ${output.reason}`;
    case "content":
      return output.value.flatMap((p) => (p.type === "text" ? [p.text] : [])).join("\n");
    default:
      return JSON.stringify(output);
  }
};

/** A call's input as the arguments JSON text core renders (the SDK hands back parsed input). */
const argumentsText = (input: unknown): string =>
  typeof input === "string" ? input : JSON.stringify(input ?? {});

/** The AI SDK prompt as core's conversation: messages, earlier calls and their results, in order. */
export const conversationOf = (prompt: Prompt, table: PartTable): ConversationItem[] => {
  const items: ConversationItem[] = [];
  for (const message of prompt) {
    switch (message.role) {
      case "system":
        items.push({ type: "message", role: "system", content: [{ type: "text", text: message.content }] });
        break;
      case "user":
        items.push({
          type: "message",
          role: "user",
          content: message.content.map((p) =>
            p.type === "text" ? { type: "text", text: p.text } : table.ref(p),
          ),
        });
        break;
      case "assistant": {
        let content: ContentPart[] = [];
        const flush = () => {
          if (content.length > 0) items.push({ type: "message", role: "assistant", content });
          content = [];
        };
        for (const part of message.content) {
          if (part.type === "text") content.push({ type: "text", text: part.text });
          else if (part.type === "reasoning") continue;
          else if (part.type === "tool-call") {
            flush();
            items.push({
              type: "tool-call",
              callId: part.toolCallId,
              name: part.toolName,
              arguments: argumentsText(part.input),
            });
          } else if (part.type === "tool-result") {
            flush();
            items.push({
              type: "tool-result",
              callId: part.toolCallId,
              name: part.toolName,
              output: toolOutputText(part.output),
            });
          } else content.push(table.ref(part));
        }
        flush();
        break;
      }
      case "tool":
        for (const part of message.content)
          if (part.type === "tool-result")
            items.push({
              type: "tool-result",
              callId: part.toolCallId,
              name: part.toolName,
              output: toolOutputText(part.output),
            });
        break;
    }
  }
  return items;
};

/** Adjacent text parts as one (core separates the lines it joins with its own "\n" parts). */
const joined = <P>(parts: ReadonlyArray<ContentPart>, table: PartTable, text: (t: string) => P): P[] => {
  const out: P[] = [];
  let run: string | undefined;
  for (const part of parts) {
    if (part.type === "text") run = (run ?? "") + part.text;
    else {
      if (run !== undefined) out.push(text(run));
      run = undefined;
      const own = table.get(part.url);
      if (own !== undefined) out.push(own as P);
    }
  }
  if (run !== undefined) out.push(text(run));
  return out;
};

const textOf = (parts: ReadonlyArray<ContentPart>): string =>
  parts.flatMap((p) => (p.type === "text" ? [p.text] : [])).join("");

const messageOf = (message: PromptMessage, table: PartTable): Message | undefined => {
  if (!("content" in message)) return undefined; // native-only shapes: never in a prompt-mode request
  const text = (t: string) => ({ type: "text" as const, text: t });
  switch (message.role) {
    case "developer":
      return { role: "system", content: textOf(message.content) };
    case "assistant":
      return { role: "assistant", content: joined<AssistantPart>(message.content, table, text) };
    default:
      return { role: "user", content: joined<UserPart>(message.content, table, text) };
  }
};

/** Core's rendered request as the AI SDK prompt a text-only model takes: system, history, input. */
export const promptOf = (request: BackendRequest, table: PartTable): Prompt => {
  const prompt: Prompt = [];
  if (request.instructions !== "") prompt.push({ role: "system", content: request.instructions });
  for (const message of request.history) {
    const rendered = messageOf(message, table);
    if (rendered !== undefined) prompt.push(rendered);
  }
  if (request.input.length > 0) {
    const input = messageOf({ role: "user", content: request.input }, table);
    if (input !== undefined) prompt.push(input);
  }
  return prompt;
};
