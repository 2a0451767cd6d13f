import { createParser } from "eventsource-parser";

/**
 * An independent checker of the Messages streaming grammar, for golden transcripts, split-anywhere
 * properties and end-to-end tests. It folds the events into the final message the way the SDK does
 * and throws on the first rule broken:
 * - every SSE frame has an `event:` name equal to its data's `type`;
 * - `message_start` first; `ping` anywhere after it;
 * - blocks: indexes 0, 1, 2… in order, each started once, deltas only for the open block and of its
 *   kind, stopped once, never interleaved; `input_json_delta` pieces concatenate to a JSON object;
 * - exactly one `message_delta` (after every block stopped, with a stop reason and numeric
 *   `usage.output_tokens`), then `message_stop` as the last event;
 * - or an `error` event as the last event, with no `message_stop`.
 */

export interface SseFrame {
  readonly event: string | undefined;
  readonly data: string;
}

export interface CheckedMessage {
  readonly id: string;
  readonly model: string;
  readonly content: Array<Record<string, unknown>>;
  readonly stop_reason: string | null;
  readonly usage: Record<string, number>;
}

export type CheckedStream =
  | { readonly kind: "message"; readonly message: CheckedMessage; readonly pings: number }
  | { readonly kind: "error"; readonly error: { type: string; message: string }; readonly blocks: number };

const STOP_REASONS = new Set([
  "end_turn",
  "max_tokens",
  "stop_sequence",
  "tool_use",
  "pause_turn",
  "refusal",
  "compaction",
]);
const DELTA_FOR: Record<string, ReadonlyArray<string>> = {
  text: ["text_delta"],
  thinking: ["thinking_delta", "signature_delta"],
  tool_use: ["input_json_delta"],
  compaction: ["compaction_delta"],
};

const fail = (at: number, why: string): never => {
  throw new Error(`event ${at}: ${why}`);
};

export const checkMessagesStream = (frames: ReadonlyArray<SseFrame>): CheckedStream => {
  let message: (CheckedMessage & { stop_reason: string | null }) | undefined;
  let openIndex: number | undefined;
  const content: Array<Record<string, unknown>> = [];
  const json: string[] = [];
  let deltaSeen = false;
  let stopped = false;
  let pings = 0;

  frames.forEach((frame, at) => {
    const data = JSON.parse(frame.data) as Record<string, unknown> & { type: string };
    if (frame.event !== data.type)
      fail(at, `event name '${frame.event}' differs from data.type '${data.type}'`);
    if (stopped) fail(at, `'${data.type}' after message_stop`);
    if (data.type === "error") {
      if (at !== frames.length - 1) fail(at, "error is not the last event");
      return;
    }
    if (message === undefined && data.type !== "message_start")
      fail(at, `'${data.type}' before message_start`);
    switch (data.type) {
      case "message_start": {
        if (message !== undefined) fail(at, "second message_start");
        const m = data.message as CheckedMessage;
        if (!Array.isArray(m.content) || m.content.length !== 0) fail(at, "message_start content is not []");
        if (typeof m.usage?.input_tokens !== "number") fail(at, "message_start without usage.input_tokens");
        message = { ...m, content };
        return;
      }
      case "ping":
        pings++;
        return;
      case "content_block_start": {
        if (deltaSeen) fail(at, "content block after message_delta");
        if (openIndex !== undefined) fail(at, `block ${data.index} starts while block ${openIndex} is open`);
        if (data.index !== content.length) fail(at, `block index ${data.index}, expected ${content.length}`);
        const block = { ...(data.content_block as Record<string, unknown>) };
        if (DELTA_FOR[block.type as string] === undefined) fail(at, `unknown block type '${block.type}'`);
        if (block.type === "tool_use" && !/^toolu_/.test(String(block.id))) fail(at, `tool id '${block.id}'`);
        content.push(block);
        json.push("");
        openIndex = data.index as number;
        return;
      }
      case "content_block_delta": {
        if (data.index !== openIndex) fail(at, `delta for block ${data.index}, open is ${openIndex}`);
        const block = content[openIndex as number] as Record<string, unknown>;
        const delta = data.delta as Record<string, string>;
        if (!DELTA_FOR[block.type as string]?.includes(delta.type as string))
          fail(at, `'${delta.type}' inside a ${block.type} block`);
        if (delta.type === "text_delta") block.text = `${block.text}${delta.text}`;
        else if (delta.type === "thinking_delta") block.thinking = `${block.thinking}${delta.thinking}`;
        else if (delta.type === "signature_delta") block.signature = `${block.signature}${delta.signature}`;
        else if (delta.type === "compaction_delta") {
          // One delta carries the whole summary (Anthropic's shape), and only the first block may be one.
          if (block.content !== null) fail(at, "a second compaction_delta");
          if (openIndex !== 0) fail(at, "a compaction block that is not the first block");
          block.content = delta.content;
        } else json[openIndex as number] = `${json[openIndex as number]}${delta.partial_json}`;
        return;
      }
      case "content_block_stop": {
        if (data.index !== openIndex) fail(at, `stop for block ${data.index}, open is ${openIndex}`);
        const block = content[openIndex as number] as Record<string, unknown>;
        if (block.type === "tool_use") {
          const raw = json[openIndex as number] as string;
          let input: unknown;
          try {
            input = raw === "" ? {} : JSON.parse(raw);
          } catch {
            fail(at, `input_json_delta pieces do not form JSON: ${raw}`);
          }
          if (typeof input !== "object" || input === null || Array.isArray(input))
            fail(at, `tool input is not an object: ${raw}`);
          block.input = input;
        }
        if (block.type === "thinking" && block.signature === "") fail(at, "thinking block without signature");
        openIndex = undefined;
        return;
      }
      case "message_delta": {
        if (deltaSeen) fail(at, "second message_delta");
        if (openIndex !== undefined) fail(at, `message_delta while block ${openIndex} is open`);
        const delta = data.delta as { stop_reason?: string };
        const usage = data.usage as Record<string, number> | undefined;
        if (!STOP_REASONS.has(String(delta.stop_reason))) fail(at, `stop_reason '${delta.stop_reason}'`);
        if (typeof usage?.output_tokens !== "number") fail(at, "message_delta without usage.output_tokens");
        deltaSeen = true;
        message = {
          ...(message as CheckedMessage),
          stop_reason: delta.stop_reason as string,
          usage: { ...(message as CheckedMessage).usage, ...usage },
        };
        return;
      }
      case "message_stop":
        if (!deltaSeen) fail(at, "message_stop without message_delta");
        stopped = true;
        return;
      default:
        fail(at, `unknown event '${data.type}'`);
    }
  });

  const last = frames.at(-1);
  if (last !== undefined && last.event === "error") {
    const error = (JSON.parse(last.data) as { error: { type: string; message: string } }).error;
    if (typeof error?.type !== "string" || typeof error.message !== "string")
      fail(frames.length - 1, "error shape");
    return { kind: "error", error, blocks: content.length };
  }
  if (!stopped) fail(frames.length, "stream ended without message_stop");
  return { kind: "message", message: message as CheckedMessage, pings };
};

/** Splits an SSE body into frames with a well-kept SSE parser (comments such as `: ping` dropped). */
export const parseSseFrames = (body: string): SseFrame[] => {
  const frames: SseFrame[] = [];
  const parser = createParser({ onEvent: (e) => frames.push({ event: e.event, data: e.data }) });
  parser.feed(body);
  return frames;
};
