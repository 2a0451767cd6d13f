import type { AssistantEvent } from "@proxy/core";
import type { SseSink, StreamEncoder } from "@proxy/http-surface";
import { createMessageEncoder } from "./message-encoder.js";
import type { MessageMeta } from "./message-shapes.js";

/**
 * The frames of an accepted turn as Messages SSE: every frame an `event:` line naming its type and one
 * `data:` line. The session guarantees the events end in exactly one `finish` (→ `message_delta` +
 * `message_stop`) or `error` (→ an `error` event and nothing after it; Claude Code then retries
 * without streaming); it also writes the `ping` keep-alives and aborts the backend turn when the
 * client goes away.
 */
export const messageStreamEncoder = (meta: MessageMeta): StreamEncoder => {
  const encoder = createMessageEncoder(meta);
  const queue = (event: AssistantEvent | { readonly type: "stream-start" }, sink: SseSink) => {
    for (const out of encoder.push(event)) sink.queue(JSON.stringify(out), out.type);
  };
  return {
    // The opening frames go out with the first batch.
    start: (sink) => queue({ type: "stream-start" }, sink),
    push: queue,
    end: queue,
  };
};
