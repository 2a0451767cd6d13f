import { type Finish, GatewayError, toGatewayError, type Usage } from "@proxy/core";
import type { Context } from "hono";
import { streamSSE } from "hono/streaming";
import { chatFinishReason, chunk, usageChunk } from "./chat-shapes.js";
import { createDeltaEncoder } from "./delta-encoder.js";
import { nextEvent, type StartedTurn, telemetryComment } from "./started-turn.js";

/**
 * Streams a started turn as Chat Completions SSE: a role chunk, content / tool-call deltas, exactly
 * one finish chunk, the usage chunk when asked for, a telemetry comment, then `[DONE]`.
 * A failure after the first byte is sent as `data: {"error":{…}}` followed by the telemetry comment
 * and the end of the stream, without a finish chunk (the turn did not finish) and without `[DONE]`.
 * When the client goes away the backend turn is aborted.
 */
export const streamChatCompletion = (c: Context, turn: StartedTurn): Response =>
  streamSSE(c, async (stream) => {
    stream.onAbort(turn.abort);
    const { meta, plan, settings } = turn;
    const encoder = createDeltaEncoder({
      outputMode: settings.outputMode,
      legacyFunctions: plan.legacyFunctions,
    });
    // Every write re-arms the idle timer, so a silent backend (long reasoning, held text) still shows
    // life. One timer per stream, re-armed with refresh(): no allocation on the per-delta hot path.
    let keepAlive: ReturnType<typeof setTimeout> | undefined;
    let turnOver = false;
    const ping = () => {
      if (turnOver || stream.aborted) return;
      void stream.write(": ping\n\n").then(() => keepAlive?.refresh());
    };
    const armKeepAlive = () => {
      if (turn.keepAliveMs <= 0 || turnOver || stream.aborted) return;
      if (keepAlive) keepAlive.refresh();
      else keepAlive = setTimeout(ping, turn.keepAliveMs);
    };
    const send = (data: unknown) => {
      armKeepAlive();
      return stream.writeSSE({ data: JSON.stringify(data) });
    };

    await send(chunk(meta, { role: "assistant", content: "" }, null, plan.includeUsage));
    const ttfbMs = turn.elapsedMs();
    let finish: Finish | undefined;
    let usage: Usage | undefined;
    let error: GatewayError | undefined;
    try {
      for (
        let event = await nextEvent(turn.events);
        event !== undefined;
        event = await nextEvent(turn.events)
      ) {
        if (stream.aborted || turn.cancelled()) break;
        if (event.type === "finish") finish = event.finish;
        else if (event.type === "usage") usage = event.usage;
        else if (event.type === "error") error = event.error;
        else
          for (const delta of encoder.encode(event)) await send(chunk(meta, delta, null, plan.includeUsage));
      }
    } catch (e) {
      error = toGatewayError(e);
    } finally {
      turnOver = true;
      clearTimeout(keepAlive);
      await turn.events.return?.();
    }

    if (stream.aborted || turn.cancelled()) {
      turn.end({ error: new GatewayError("cancelled", "The client closed the stream."), ttfbMs });
      return;
    }
    if (error !== undefined || finish === undefined) {
      const failure = error ?? new GatewayError("backend_error", "The turn ended without a finish.");
      await send({ error: failure.toOpenAI() });
      await stream.write(telemetryComment(turn.telemetry(), settings));
      turn.end({ error: failure, ttfbMs });
      return;
    }
    await send(chunk(meta, {}, chatFinishReason(finish.reason, plan.legacyFunctions), plan.includeUsage));
    if (plan.includeUsage && usage !== undefined) await send(usageChunk(meta, usage));
    await stream.write(telemetryComment(turn.telemetry(), settings));
    await stream.writeSSE({ data: "[DONE]" });
    turn.end({ finish: finish.reason, ttfbMs });
  });
