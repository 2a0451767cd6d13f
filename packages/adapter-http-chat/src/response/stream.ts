import type { Finish, Usage } from "@proxy/core";
import type { StreamEncoder, TurnSession } from "@proxy/http-surface";
import { openAIError } from "@proxy/http-surface/openai-wire";
import { createDeltaEncoder } from "../delta-encoder.js";
import type { ChatTurnPlan } from "../request/decode-request.js";
import { telemetryComment } from "./answer.js";
import {
  chatFinishReason,
  chunk,
  contentFrameTemplate,
  type ResponseMeta,
  usageChunk,
} from "./chat-shapes.js";

/**
 * The frames of an accepted turn as Chat Completions SSE: a role chunk, content / tool-call deltas, exactly
 * one finish chunk, the usage chunk when asked for, a telemetry comment, then `[DONE]`.
 * A failure after the first byte is sent as `data: {"error":{…}}` followed by the telemetry comment
 * and the end of the stream, without a finish chunk (the turn did not finish) and without `[DONE]`.
 */
export const chatStreamEncoder = (
  plan: ChatTurnPlan,
  session: TurnSession,
  meta: ResponseMeta,
): StreamEncoder => {
  const { settings } = session;
  const encoder = createDeltaEncoder({
    outputMode: settings.outputMode,
    legacyFunctions: plan.legacyFunctions,
    customTools: plan.customTools,
    webSearch: plan.request.hostedTools?.webSearch !== undefined,
  });
  const text = contentFrameTemplate(meta, plan.includeUsage);
  let usage: Usage | undefined;
  return {
    // The role chunk goes out with the first batch.
    start: (sink) =>
      sink.queue(JSON.stringify(chunk(meta, { role: "assistant", content: "" }, null, plan.includeUsage))),
    push(event, sink) {
      if (event.type === "text-delta") {
        // JSON escapes every line break, so the chunk is one `data:` line.
        if (event.delta !== "") sink.queueText(text.frame(event.delta));
        encoder.sentText(event.delta);
      } else if (event.type === "usage") usage = event.usage;
      else
        for (const delta of encoder.encode(event))
          sink.queue(JSON.stringify(chunk(meta, delta, null, plan.includeUsage)));
    },
    end(terminal, sink) {
      if (terminal.type === "error") {
        sink.queue(JSON.stringify({ error: openAIError(terminal.error) }));
        sink.queueText(telemetryComment(session.telemetry(), settings));
        return;
      }
      const finish: Finish = terminal.finish;
      const annotations = encoder.annotations();
      if (annotations.length > 0)
        sink.queue(JSON.stringify(chunk(meta, { annotations }, null, plan.includeUsage)));
      sink.queue(
        JSON.stringify(
          chunk(meta, {}, chatFinishReason(finish.reason, plan.legacyFunctions), plan.includeUsage),
        ),
      );
      if (plan.includeUsage && usage !== undefined) sink.queue(JSON.stringify(usageChunk(meta, usage)));
      sink.queueText(telemetryComment(session.telemetry(), settings));
      sink.queue("[DONE]");
    },
  };
};
