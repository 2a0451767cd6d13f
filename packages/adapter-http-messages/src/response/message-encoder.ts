import type { AssistantEvent, Usage } from "@proxy/core";
import { anthropicErrorObject } from "../errors.js";
import {
  type MessageMeta,
  type MessagesStreamEvent,
  messagesUsage,
  stopReasonOf,
  THINKING_SIGNATURE,
  toolUseId,
} from "./message-shapes.js";
import {
  citedTextBlocks,
  searchResultBlock,
  serverToolUseBlock,
  serverToolUseId,
} from "./web-search-blocks.js";

type OpenBlock = "text" | "thinking" | "tool_use";

/** Anthropic's `usage.iterations`: the compaction's usage, then the answer's (absent when paused). */
const withIterations = (
  answer: Usage | undefined,
  compaction: Usage | undefined,
  paused: boolean,
  searches: number,
) => {
  const { iterations: _, ...top } = messagesUsage(answer, searches);
  const { iterations: __, ...compacting } = messagesUsage(compaction);
  return {
    ...top,
    iterations: [
      { type: "compaction" as const, ...compacting },
      ...(paused ? [] : [{ type: "message" as const, ...top }]),
    ],
  };
};

/**
 * Turns one turn's assistant events into Messages stream events: the single translation both the SSE
 * stream and the non-stream message (folded from the same events) are built from. Blocks never
 * interleave and their indexes run 0, 1, 2…: a change of kind closes the open block first. A thinking
 * block gets its signature just before it closes; a tool call whose arguments were empty gets `{}`.
 * `finish` closes the last block and sends `message_delta` (stop reason + usage) and `message_stop`;
 * `error` sends Anthropic's `error` event and nothing after it. After a hosted web search the text
 * and thinking are held until the answer ends (or a call starts): the search's result block, which
 * comes first, lists the pages that text cites (see web-search-blocks.ts).
 */
export const createMessageEncoder = (meta: MessageMeta) => {
  let open: OpenBlock | undefined;
  let index = -1;
  let argumentChars = 0;
  let usage: Usage | undefined;
  let searches = 0;
  /** The last search's `server_tool_use` id while its result block waits for the answer's text. */
  let resultFor: string | undefined;
  let held: AssistantEvent[] = [];
  // A compaction began the answer: its usage is reported apart, and a paused one ends the message.
  let compacted = false;
  let compactionUsage: Usage | undefined;

  const close = (out: MessagesStreamEvent[]) => {
    if (open === undefined) return;
    if (open === "thinking")
      out.push({
        type: "content_block_delta",
        index,
        delta: { type: "signature_delta", signature: THINKING_SIGNATURE },
      });
    out.push({ type: "content_block_stop", index });
    open = undefined;
  };

  const ensure = (kind: "text" | "thinking", out: MessagesStreamEvent[]) => {
    if (open === kind) return;
    close(out);
    index++;
    open = kind;
    out.push({
      type: "content_block_start",
      index,
      content_block:
        kind === "text" ? { type: "text", text: "" } : { type: "thinking", thinking: "", signature: "" },
    });
  };

  /** The held search result, with the pages of the text held since, then that text with its citations. */
  const release = (out: MessagesStreamEvent[]) => {
    if (resultFor === undefined) return;
    const events = held;
    const text = events.map((e) => (e.type === "text-delta" ? e.delta : "")).join("");
    close(out);
    out.push(...searchResultBlock(++index, resultFor, text));
    resultFor = undefined;
    held = [];
    let run = "";
    const flushRun = () => {
      if (run === "") return;
      close(out);
      const cited = citedTextBlocks(index + 1, run);
      out.push(...cited.events);
      index = cited.next - 1;
      run = "";
    };
    for (const e of events) {
      if (e.type === "text-delta") run += e.delta;
      else {
        flushRun();
        out.push(...push(e));
      }
    }
    flushRun();
  };

  const push = (event: AssistantEvent): MessagesStreamEvent[] => {
    const out: MessagesStreamEvent[] = [];
    if (resultFor !== undefined) {
      if (event.type === "text-delta" || event.type === "reasoning-delta") {
        held.push(event);
        return out;
      }
      if (event.type !== "usage" && event.type !== "web-search") release(out);
    }
    switch (event.type) {
      case "stream-start":
        out.push({
          type: "message_start",
          message: {
            id: meta.id,
            type: "message",
            role: "assistant",
            model: meta.model,
            content: [],
            stop_reason: null,
            stop_sequence: null,
            usage: messagesUsage(undefined),
          },
        });
        break;
      case "text-delta":
        if (event.delta === "") break;
        ensure("text", out);
        out.push({ type: "content_block_delta", index, delta: { type: "text_delta", text: event.delta } });
        break;
      case "reasoning-delta":
        // As Anthropic: no thinking blocks unless the client enabled thinking.
        if (event.delta === "" || meta.thinking === false) break;
        ensure("thinking", out);
        out.push({
          type: "content_block_delta",
          index,
          delta: { type: "thinking_delta", thinking: event.delta },
        });
        break;
      case "tool-call-start":
        close(out);
        index++;
        open = "tool_use";
        argumentChars = 0;
        out.push({
          type: "content_block_start",
          index,
          content_block: { type: "tool_use", id: toolUseId(event.callId), name: event.name, input: {} },
        });
        break;
      case "tool-call-delta":
        if (event.delta === "") break;
        argumentChars += event.delta.length;
        out.push({
          type: "content_block_delta",
          index,
          delta: { type: "input_json_delta", partial_json: event.delta },
        });
        break;
      case "tool-call-end":
        // A parameterless call still carries `{}`: clients parse the concatenated fragments.
        if (argumentChars === 0)
          out.push({
            type: "content_block_delta",
            index,
            delta: { type: "input_json_delta", partial_json: "{}" },
          });
        close(out);
        break;
      case "compaction":
        // One block with the whole summary, as Anthropic streams it: start, one delta, stop.
        close(out);
        index++;
        compacted = true;
        compactionUsage = event.usage;
        out.push(
          {
            type: "content_block_start",
            index,
            content_block: { type: "compaction", content: null, encrypted_content: null },
          },
          {
            type: "content_block_delta",
            index,
            delta: { type: "compaction_delta", content: event.summary, encrypted_content: null },
          },
          { type: "content_block_stop", index },
        );
        break;
      case "usage":
        usage = event.usage;
        break;
      case "web-search": {
        if (event.status !== "completed") break;
        release(out);
        close(out);
        searches++;
        resultFor = serverToolUseId(event.id);
        out.push(...serverToolUseBlock(++index, resultFor, event.query ?? ""));
        break;
      }
      case "finish": {
        close(out);
        const paused = compacted && event.finish.raw === "compaction";
        const stopReason = paused ? "compaction" : stopReasonOf(event.finish);
        const sequences = meta.stopSequences ?? [];
        // The core names the sequence it cut at; a backend that stopped on one itself may not.
        const stopSequence =
          stopReason !== "stop_sequence"
            ? null
            : (event.finish.stopSequence ?? (sequences.length === 1 ? sequences[0]! : null));
        out.push({
          type: "message_delta",
          delta: { stop_reason: stopReason, stop_sequence: stopSequence },
          usage: compacted
            ? withIterations(usage, compactionUsage, paused, searches)
            : messagesUsage(usage, searches),
        });
        out.push({ type: "message_stop" });
        break;
      }
      case "error":
        out.push({ type: "error", error: anthropicErrorObject(event.error) });
        break;
    }
    return out;
  };

  return { push };
};

export type MessageEncoder = ReturnType<typeof createMessageEncoder>;
