import type { AssistantBatch } from "@proxy/core";
import type { TurnSession } from "@proxy/http-surface";
import { createMessageEncoder } from "../response/message-encoder.js";
import type { MessageMeta } from "../response/message-shapes.js";

/**
 * Streams a started turn as Messages SSE: every frame an `event:` line naming its type and one
 * `data:` line. The session guarantees the events end in exactly one `finish` (→ `message_delta` +
 * `message_stop`) or `error` (→ an `error` event and nothing after it; Claude Code then retries
 * without streaming); it also writes the `ping` keep-alives and aborts the backend turn when the
 * client goes away.
 */
export const streamMessage = (
  session: TurnSession,
  meta: MessageMeta,
  batches: AsyncIterable<AssistantBatch>,
): Response =>
  session.stream(async (sink) => {
    const encoder = createMessageEncoder(meta);
    // The opening frames go out with the first batch: one write per batch of events.
    for (const out of encoder.push({ type: "stream-start" })) sink.queue(JSON.stringify(out), out.type);
    for await (const batch of batches) {
      if (sink.aborted) return;
      for (const event of batch)
        for (const out of encoder.push(event)) sink.queue(JSON.stringify(out), out.type);
      await sink.flush();
    }
  });
