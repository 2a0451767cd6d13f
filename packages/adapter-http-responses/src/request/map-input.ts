import type { ContentPart, ConversationItem } from "@proxy/core";
import { customCallArguments, invalidRequest } from "@proxy/core";
import { renderCompactionSummary } from "@proxy/core/gateway";
import type { Input, InputItem, MessageContentPart } from "./input-schema.js";

/** Tools carried inside the input (codex `additional_tools`), with the path they came from. */
export interface ToolSource {
  readonly tools: ReadonlyArray<unknown>;
  readonly path: string;
}

export interface MappedInput {
  readonly items: ReadonlyArray<ConversationItem>;
  readonly additionalTools: ReadonlyArray<ToolSource>;
  /** codex remote compaction v2: the answer must be exactly one `compaction` item. */
  readonly compactionTrigger: boolean;
  /** Text of the last user message (compaction-prompt detection). */
  readonly lastUserText: string;
}

/** How a compaction we issued is shown to the backend when the client sends it back (core's text). */
export { renderCompactionSummary } from "@proxy/core/gateway";

const IMAGE_DETAILS = new Set(["auto", "low", "high"]);

const toContentPart = (part: MessageContentPart, path: string): ContentPart => {
  switch (part.type) {
    case "input_text":
    case "output_text":
      return { type: "text", text: part.text };
    case "refusal":
      return { type: "text", text: part.refusal };
    case "input_image": {
      const detail = part.detail;
      return detail !== undefined && detail !== null && IMAGE_DETAILS.has(detail)
        ? { type: "image", url: part.image_url, detail: detail as "auto" | "low" | "high", path }
        : { type: "image", url: part.image_url, path };
    }
  }
};

type ToolOutput = Extract<InputItem, { type: "function_call_output" }>["output"];

/** Tool results are text for the backend; parts it cannot be shown leave a visible placeholder. */
const toolOutputText = (output: ToolOutput): string =>
  typeof output === "string"
    ? output
    : output
        .flatMap((part) =>
          part.type === "input_text" || part.type === "output_text"
            ? [part.text]
            : "image_url" in part
              ? []
              : [`[${part.type} omitted]`],
        )
        .join("\n");

/** The images a tool returned, shown to the model after its result. */
const toolOutputImages = (output: ToolOutput, i: number) =>
  typeof output === "string"
    ? []
    : output.flatMap((part, j) =>
        part.type === "input_image" && "image_url" in part
          ? [{ type: "image" as const, url: part.image_url, path: `input[${i}].output[${j}].image_url` }]
          : [],
      );

const textOf = (content: ReadonlyArray<ContentPart>): string =>
  content.map((part) => (part.type === "text" ? part.text : "")).join("\n");

/** Responses `input` → the core's conversation items, in order. */
export const mapInput = (input: Input | undefined): MappedInput => {
  if (input === undefined) throw invalidRequest("Missing required parameter: 'input'.", "input");
  if (typeof input === "string") {
    const items = [{ type: "message", role: "user", content: [{ type: "text", text: input }] } as const];
    return { items, additionalTools: [], compactionTrigger: false, lastUserText: input };
  }
  const items: ConversationItem[] = [];
  const additionalTools: ToolSource[] = [];
  const callNames = new Map<string, string>();
  let compactionTrigger = false;
  let lastUserText = "";
  input.forEach((item, i) => {
    switch (item.type) {
      case undefined:
      case "message": {
        const content =
          typeof item.content === "string"
            ? [{ type: "text", text: item.content } as const]
            : item.content.map((part, j) => toContentPart(part, `input[${i}].content[${j}].image_url`));
        if (item.role === "user") lastUserText = textOf(content);
        items.push({ type: "message", role: item.role, content });
        return;
      }
      case "function_call":
        callNames.set(item.call_id, item.name);
        items.push({ type: "tool-call", callId: item.call_id, name: item.name, arguments: item.arguments });
        return;
      case "custom_tool_call":
        callNames.set(item.call_id, item.name);
        items.push({
          type: "tool-call",
          callId: item.call_id,
          name: item.name,
          arguments: customCallArguments(item.input),
          custom: true,
        });
        return;
      case "function_call_output":
      case "custom_tool_call_output":
        if (!callNames.has(item.call_id))
          throw invalidRequest(
            `No tool call found for function call output with call_id ${JSON.stringify(item.call_id)}.`,
            `input[${i}].call_id`,
          );
        items.push({
          type: "tool-result",
          callId: item.call_id,
          name: callNames.get(item.call_id),
          output: toolOutputText(item.output),
          images: toolOutputImages(item.output, i),
        });
        return;
      case "reasoning": {
        const text = [...(item.summary ?? []), ...(item.content ?? [])].map((e) => e.text).join("\n");
        if (text !== "") items.push({ type: "reasoning", text });
        return;
      }
      case "additional_tools":
        additionalTools.push({ tools: item.tools, path: `input[${i}].tools` });
        return;
      case "compaction":
        items.push({
          type: "message",
          role: "user",
          content: [{ type: "text", text: renderCompactionSummary(item.encrypted_content) }],
        });
        return;
      case "compaction_trigger":
        compactionTrigger = true;
        return;
      default:
        // item_reference was resolved or dropped by decodeInput.
        // Hosted-tool items (web_search_call, …) from another provider's history: not rendered.
        return;
    }
  });
  if (items.length === 0 && !compactionTrigger)
    throw invalidRequest("'input' must contain at least one message or item.", "input");
  return { items, additionalTools, compactionTrigger, lastUserText };
};
