import { type AssistantEvent, type FinishReason, GatewayError } from "@proxy/core";
import { createTelemetry, type OutputMode, type TurnSummary, type TurnTelemetry } from "@proxy/core/gateway";
import type { Context } from "hono";
import { httpStatusFor } from "../errors/http-error.js";
import { requestCaller } from "../request/caller.js";
import type { RequestTrace } from "../request/trace.js";
import type { SurfaceDeps } from "../surface/deps.js";
import type { SurfaceProfile } from "../surface/profile.js";
import type { TerminalWatcher } from "./terminated.js";

const EMPTY_TELEMETRY = (): TurnTelemetry => createTelemetry([]);

/** What the request asked for, known once its body is decoded. */
interface Decoded {
  readonly model: string;
  readonly stream: boolean;
  readonly decodedMs: number;
}

/**
 * What one request's turn did, reported exactly once as a frozen `TurnSummary` to the observer and
 * the request's trace: what was asked (once decoded), when it got where, and how it ended (a turn's
 * `error` event unless the surface recorded one first; a refusal or a stall replaces it).
 */
export const createTurnReport = (
  c: Context,
  deps: SurfaceDeps,
  profile: SurfaceProfile,
  arrivedAt: number,
) => {
  const trace: RequestTrace | undefined = deps.trace?.(c);
  let asked: Decoded | undefined;
  let telemetry = EMPTY_TELEMETRY;
  let acceptedMs: number | undefined;
  let ttfbMs: number | undefined;
  let finish: FinishReason | undefined;
  let error: GatewayError | undefined;
  let reported = false;

  /** The session's error once the turn ends: an `error` event's, unless one was recorded first. */
  const watcher: TerminalWatcher = {
    ended(event: AssistantEvent): GatewayError | undefined {
      if (event.type === "finish") finish = event.finish.reason;
      else if (event.type === "error") error ??= event.error;
      return error;
    },
  };

  return {
    trace,
    watcher,
    decoded(model: string, stream: boolean): void {
      asked = { model, stream, decodedMs: deps.clock.now() - arrivedAt };
    },
    running(turnTelemetry: () => TurnTelemetry): void {
      telemetry = turnTelemetry;
    },
    accepted(): void {
      acceptedMs = deps.clock.now() - arrivedAt;
    },
    firstByte(): void {
      ttfbMs ??= deps.clock.now() - arrivedAt;
    },
    /** The turn's error from now on, whatever came before (a refusal, a stalled client). */
    failed(failure: GatewayError): void {
      error = failure;
    },
    /** The turn's error unless it already has one. */
    recordError(failure: GatewayError): void {
      error ??= failure;
    },
    telemetry: (): TurnTelemetry => telemetry(),
    reported: (): boolean => reported,
    /** Reports the turn; `cancelled` = the client went away, which is then its error. */
    report(outputMode: OutputMode, cancelled: boolean): void {
      if (reported) return;
      reported = true;
      if (cancelled) error = new GatewayError("cancelled", "The client closed the connection.");
      const summary: TurnSummary = Object.freeze({
        api: profile.api,
        model: asked?.model ?? "",
        stream: asked?.stream ?? false,
        outputMode,
        telemetry: Object.freeze(telemetry()),
        finish: error === undefined ? finish : undefined,
        error,
        ttfbMs,
        caller: requestCaller(c),
        timings: {
          arrivedAt,
          decodedMs: asked?.decodedMs,
          acceptedMs,
          endedMs: deps.clock.now() - arrivedAt,
        },
      });
      deps.observer?.onTurnEnd(summary);
      if (trace !== undefined) {
        if (error !== undefined) trace.onTurnError(error, profile.errorBody(error, httpStatusFor(error)));
        trace.onTurnEnd(summary);
      }
    },
  };
};

export type TurnReport = ReturnType<typeof createTurnReport>;
