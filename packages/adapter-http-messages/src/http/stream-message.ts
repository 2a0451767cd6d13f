import { type FinishReason, GatewayError, toGatewayError } from "@proxy/core";
import type { Context } from "hono";
import { streamSSE } from "hono/streaming";
import { createMessageEncoder } from "../response/message-encoder.js";
import type { MessagesStreamEvent } from "../response/message-shapes.js";
import { nextEvent, type StartedTurn } from "./started-turn.js";

const PING = JSON.stringify({ type: "ping" });

/**
 * Streams a started turn as Messages SSE: every frame an `event:` line naming its type and one
 * `data:` line. `ping` events during silence (one timer per stream, re-armed with refresh(): no
 * allocation per delta). A failure after the first byte is an `error` event and the end of the
 * stream, without `message_stop` (Claude Code then retries without streaming). When the client goes
 * away the backend turn is aborted.
 */
export const streamMessage = (c: Context, turn: StartedTurn): Response =>
  streamSSE(c, async (stream) => {
    stream.onAbort(turn.abort);
    const encoder = createMessageEncoder(turn.meta);
    let keepAlive: ReturnType<typeof setTimeout> | undefined;
    let turnOver = false;
    const ping = () => {
      if (turnOver || stream.aborted) return;
      void stream.writeSSE({ event: "ping", data: PING }).then(() => keepAlive?.refresh());
    };
    const armKeepAlive = () => {
      if (turn.keepAliveMs <= 0 || turnOver || stream.aborted) return;
      if (keepAlive) keepAlive.refresh();
      else keepAlive = setTimeout(ping, turn.keepAliveMs);
    };
    let ended: "finish" | "error" | undefined;
    let finish: FinishReason | undefined;
    let error: GatewayError | undefined;
    const send = async (events: ReadonlyArray<MessagesStreamEvent>) => {
      for (const event of events) {
        armKeepAlive();
        if (event.type === "message_stop") ended = "finish";
        else if (event.type === "error") ended = "error";
        await stream.writeSSE({ event: event.type, data: JSON.stringify(event) });
      }
    };

    await send(encoder.push(turn.head));
    const ttfbMs = turn.elapsedMs();
    try {
      for (
        let event = await nextEvent(turn.events);
        event !== undefined;
        event = await nextEvent(turn.events)
      ) {
        if (stream.aborted || turn.cancelled()) break;
        if (event.type === "finish") finish = event.finish.reason;
        else if (event.type === "error") error = event.error;
        await send(encoder.push(event));
        if (ended !== undefined) break;
      }
    } catch (e) {
      error = toGatewayError(e);
      await send(encoder.push({ type: "error", error }));
    } finally {
      turnOver = true;
      clearTimeout(keepAlive);
      await turn.events.return?.();
    }

    if (stream.aborted || turn.cancelled()) {
      turn.end({ error: new GatewayError("cancelled", "The client closed the stream."), ttfbMs });
      return;
    }
    if (ended === undefined) {
      error = new GatewayError("backend_error", "The turn ended without a finish.");
      await send(encoder.push({ type: "error", error }));
    }
    turn.end(error !== undefined ? { error, ttfbMs } : { finish, ttfbMs });
  });
