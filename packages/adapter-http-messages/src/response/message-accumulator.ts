import type { MessageObject, MessagesStreamEvent, OutputBlock } from "./message-shapes.js";

/**
 * Folds this surface's own stream events into the non-stream message, exactly as a streaming client
 * would: blocks appended by index, text and thinking concatenated, tool input parsed from the
 * concatenated `input_json_delta` pieces when the block stops.
 */
export const createMessageAccumulator = () => {
  let message: MessageObject | undefined;
  const json = new Map<number, string>();

  return {
    add(event: MessagesStreamEvent): void {
      switch (event.type) {
        case "message_start":
          message = { ...event.message, content: [] };
          return;
        case "content_block_start":
          message?.content.push({ ...event.content_block } as OutputBlock);
          if (event.content_block.type === "tool_use" || event.content_block.type === "server_tool_use")
            json.set(event.index, "");
          return;
        case "content_block_delta": {
          const block = message?.content[event.index];
          const d = event.delta;
          if (block?.type === "text" && d.type === "text_delta") block.text += d.text;
          else if (block?.type === "thinking" && d.type === "thinking_delta") block.thinking += d.thinking;
          else if (block?.type === "thinking" && d.type === "signature_delta") block.signature += d.signature;
          else if (block?.type === "compaction" && d.type === "compaction_delta") block.content = d.content;
          else if (block?.type === "text" && d.type === "citations_delta")
            block.citations = [...(block.citations ?? []), d.citation];
          else if (d.type === "input_json_delta")
            json.set(event.index, (json.get(event.index) ?? "") + d.partial_json);
          return;
        }
        case "content_block_stop": {
          const block = message?.content[event.index];
          const raw = json.get(event.index);
          if ((block?.type === "tool_use" || block?.type === "server_tool_use") && raw !== undefined)
            block.input = raw === "" ? {} : JSON.parse(raw);
          return;
        }
        case "message_delta":
          if (message === undefined) return;
          message.stop_reason = event.delta.stop_reason;
          message.stop_sequence = event.delta.stop_sequence;
          message.usage = { ...message.usage, ...event.usage };
          return;
        default:
          return;
      }
    },
    message: (): MessageObject | undefined => message,
  };
};
