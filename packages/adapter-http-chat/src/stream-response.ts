import type { Finish, GatewayError, Usage } from "@proxy/core";
import { openAIError, unfinishedTurn } from "@proxy/http-surface";
import { chatFinishReason, chunk, contentFrameTemplate, usageChunk } from "./chat-shapes.js";
import { createDeltaEncoder } from "./delta-encoder.js";
import { type ChatTurn, telemetryComment } from "./started-turn.js";

/**
 * Streams an accepted turn as Chat Completions SSE: a role chunk, content / tool-call deltas, exactly
 * one finish chunk, the usage chunk when asked for, a telemetry comment, then `[DONE]`.
 * A failure after the first byte is sent as `data: {"error":{…}}` followed by the telemetry comment
 * and the end of the stream, without a finish chunk (the turn did not finish) and without `[DONE]`.
 */
export const streamChatCompletion = (turn: ChatTurn): Response =>
  turn.session.stream(async (sink) => {
    const { meta, plan, session } = turn;
    const { settings } = session;
    const encoder = createDeltaEncoder({
      outputMode: settings.outputMode,
      legacyFunctions: plan.legacyFunctions,
      customTools: plan.customTools,
    });
    const queue = (data: unknown) => sink.queue(JSON.stringify(data));
    const text = contentFrameTemplate(meta, plan.includeUsage);

    // The role chunk goes out with the first batch: one write per batch of events.
    queue(chunk(meta, { role: "assistant", content: "" }, null, plan.includeUsage));
    let finish: Finish | undefined;
    let usage: Usage | undefined;
    let error: GatewayError | undefined;
    for await (const batch of turn.batches) {
      if (sink.aborted) return;
      for (const event of batch) {
        if (event.type === "finish") finish = event.finish;
        else if (event.type === "usage") usage = event.usage;
        else if (event.type === "error") error = event.error;
        else if (event.type === "text-delta") {
          // JSON escapes every line break, so the chunk is one `data:` line.
          if (event.delta !== "") sink.queueText(text.head + JSON.stringify(event.delta) + text.tail);
          encoder.sentText(event.delta);
        } else for (const delta of encoder.encode(event)) queue(chunk(meta, delta, null, plan.includeUsage));
      }
      // The batch that ends the turn goes out with the closing frames below.
      if (finish === undefined && error === undefined) await sink.flush();
    }
    if (sink.aborted) return;
    if (error !== undefined || finish === undefined) {
      queue({ error: openAIError(error ?? unfinishedTurn()) });
      await sink.write(telemetryComment(session.telemetry(), settings));
      return;
    }
    queue(chunk(meta, {}, chatFinishReason(finish.reason, plan.legacyFunctions), plan.includeUsage));
    if (plan.includeUsage && usage !== undefined) queue(usageChunk(meta, usage));
    sink.queueText(telemetryComment(session.telemetry(), settings));
    await sink.send("[DONE]");
  });
