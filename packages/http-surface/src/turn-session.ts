import {
  type AssistantEvent,
  createTelemetry,
  type FinishReason,
  GatewayError,
  resolveOutputMode,
  resolveToolMode,
  runTurn,
  type ToolPolicy,
  type TurnRequest,
  type TurnSettings,
  type TurnSummary,
  type TurnTelemetry,
  toGatewayError,
} from "@proxy/core";
import type { Context } from "hono";
import { streamSSE } from "hono/streaming";
import { type ErrorBodyShaper, errorResponse } from "./http-error.js";
import type { SurfaceDeps } from "./surface-deps.js";

/** What makes one surface's session differ from another's. */
export interface SurfaceProfile {
  /** The surface's name in turn summaries, logs and metrics (`chat`, `responses`, …). */
  readonly api: string;
  /** The surface's error body, for HTTP errors and its streams' terminal error. */
  readonly errorBody: ErrorBodyShaper;
  /** Written to a stream after `keepAliveMs` of silence; undefined = the surface sends none. */
  readonly keepAliveFrame: string | undefined;
}

/** The OpenAI surfaces' keep-alive: an SSE comment every SSE parser skips. */
export const SSE_COMMENT_KEEP_ALIVE = ": ping\n\n";

export interface TurnStart {
  readonly request: TurnRequest;
  readonly tools: ToolPolicy;
  readonly stream: boolean;
  /** Replaces the session's settings for this turn (rarely needed). */
  readonly settings?: TurnSettings | undefined;
}

export type StartedTurn =
  /** The backend accepted the turn: its events after `stream-start`, ending in exactly one `finish` or `error`. */
  | { readonly accepted: true; readonly events: AsyncIterable<AssistantEvent> }
  /** Refused before the first byte: the surface's HTTP error, already reported. */
  | { readonly accepted: false; readonly response: Response };

/** One SSE stream of a session; every write re-arms the keep-alive timer. */
export interface SseSink {
  /** One SSE event (`event:` line when named, then `data:`). */
  send(data: string, event?: string): Promise<void>;
  /** Raw SSE text, e.g. a comment. */
  write(text: string): Promise<void>;
  /** The client went away: nothing more can be delivered. */
  readonly aborted: boolean;
}

export interface TurnSession {
  /** The deployment's settings with this request's output mode (`x-proxy-output-mode`). */
  readonly settings: TurnSettings;
  /** Aborted when the client goes away; the turn and its backend stop with it. */
  readonly signal: AbortSignal;
  /** Starts the turn and waits until the backend accepted or refused it. */
  start(turn: TurnStart): Promise<StartedTurn>;
  /** Answers with the surface's error (nothing sent yet) and reports the turn with that error. */
  fail(error: unknown): Response;
  /** Answers with a JSON body and reports the turn as it ended. */
  json(body: unknown): Response;
  /** Answers with an SSE stream written by `write`; reports the turn when `write` returns. */
  stream(write: (sink: SseSink) => Promise<void>): Response;
  /** An error the surface met itself (encoder, finish it treats as failure); the summary carries it. */
  recordError(error: GatewayError): void;
  /** The client went away. */
  cancelled(): boolean;
  telemetry(): TurnTelemetry;
}

/** The one error for a turn that ended with neither a finish nor an error (a broken backend). */
export const unfinishedTurn = (): GatewayError =>
  new GatewayError("backend_error", "The turn ended without a finish.");

const EMPTY_TELEMETRY = (): TurnTelemetry => createTelemetry([]);

/**
 * One object per request between an HTTP surface and `runTurn`: it resolves the output mode, owns
 * the request's single AbortController, tells "accepted" from "refused before the first byte" the
 * same way for every surface, guarantees exactly one terminal event, writes keep-alives in the
 * surface's form, and reports one frozen turn summary exactly once.
 */
export const openTurnSession = (
  c: Context,
  deps: SurfaceDeps,
  profile: SurfaceProfile,
  options: {
    /**
     * What stops the turn instead of the client going away: a detached (background) turn outlives
     * its request and is stopped only by its own cancel.
     */
    readonly signal?: AbortSignal | undefined;
  } = {},
): TurnSession => {
  const arrivedAt = deps.clock.now();
  const outputMode = resolveOutputMode(c.req.header("x-proxy-output-mode"), deps.settings.outputMode);
  const toolMode = resolveToolMode(c.req.header("x-proxy-tool-mode"), deps.settings.toolMode);
  const settings: TurnSettings = { ...deps.settings, outputMode, toolMode };
  const controller = new AbortController();
  let clientGone = false;
  const abort = () => {
    clientGone = true;
    controller.abort();
  };
  const clientSignal = options.signal ?? c.req.raw.signal;
  if (clientSignal.aborted) abort();
  else clientSignal.addEventListener("abort", abort, { once: true });

  let model = "";
  let stream = false;
  let telemetry = EMPTY_TELEMETRY;
  let finish: FinishReason | undefined;
  let error: GatewayError | undefined;
  let ttfbMs: number | undefined;
  let reported = false;

  const markFirstByte = () => {
    ttfbMs ??= deps.clock.now() - arrivedAt;
  };
  const report = () => {
    if (reported) return;
    reported = true;
    clientSignal.removeEventListener("abort", abort);
    if (clientGone) error = new GatewayError("cancelled", "The client closed the connection.");
    const summary: TurnSummary = Object.freeze({
      api: profile.api,
      model,
      stream,
      outputMode,
      telemetry: Object.freeze(telemetry()),
      finish: error === undefined ? finish : undefined,
      error,
      ttfbMs,
    });
    deps.observer?.onTurnEnd(summary);
  };

  /** The turn's events after `stream-start`, ending in exactly one terminal event. */
  async function* terminated(
    iterator: AsyncIterator<AssistantEvent>,
    head: AssistantEvent,
  ): AsyncGenerator<AssistantEvent> {
    let ended = false;
    try {
      let event: AssistantEvent | undefined = head.type === "stream-start" ? undefined : head;
      for (;;) {
        if (event !== undefined) {
          if (event.type === "finish") finish = event.finish.reason;
          else if (event.type === "error") error = event.error;
          ended = event.type === "finish" || event.type === "error";
          yield event;
          if (ended) return;
        }
        const next = await iterator.next();
        if (next.done === true) break;
        event = next.value;
      }
    } catch (e) {
      ended = true;
      error = toGatewayError(e);
      yield { type: "error", error };
      return;
    } finally {
      await iterator.return?.();
    }
    if (!ended) {
      error = unfinishedTurn();
      yield { type: "error", error };
    }
  }

  const session: TurnSession = {
    settings,
    signal: controller.signal,
    async start(turn) {
      model = turn.request.model;
      stream = turn.stream;
      const handle = runTurn(
        { backend: deps.backend, ids: deps.ids, clock: deps.clock, schemas: deps.schemas },
        {
          request: turn.request,
          tools: turn.tools,
          settings: turn.settings ?? settings,
          signal: controller.signal,
        },
      );
      telemetry = handle.telemetry;
      const iterator = handle.events[Symbol.asyncIterator]();
      // The backend accepts or refuses the turn before the first byte: a refusal is an HTTP status.
      const head = await iterator.next().then(
        (r): AssistantEvent =>
          r.done === true
            ? { type: "error", error: new GatewayError("backend_error", "The turn ended before it started.") }
            : r.value,
        (e: unknown): AssistantEvent => ({ type: "error", error: toGatewayError(e) }),
      );
      if (head.type === "error") {
        await iterator.return?.();
        return { accepted: false, response: session.fail(head.error) };
      }
      return { accepted: true, events: { [Symbol.asyncIterator]: () => terminated(iterator, head) } };
    },
    fail(failure) {
      error = toGatewayError(failure);
      markFirstByte();
      report();
      return errorResponse(c, error, profile.errorBody);
    },
    json(body) {
      markFirstByte();
      report();
      return c.json(body as object);
    },
    stream: (write) =>
      streamSSE(c, async (sse) => {
        sse.onAbort(abort);
        const keepAlive = createKeepAlive(profile.keepAliveFrame, deps.keepAliveMs, (frame) =>
          sse.write(frame),
        );
        const sink: SseSink = {
          send(data, event) {
            markFirstByte();
            keepAlive.rearm();
            return sse.writeSSE(event === undefined ? { data } : { event, data });
          },
          write(text) {
            markFirstByte();
            keepAlive.rearm();
            return sse.write(text).then(() => undefined);
          },
          get aborted() {
            return sse.aborted || controller.signal.aborted;
          },
        };
        try {
          await write(sink);
        } finally {
          keepAlive.stop();
          report();
        }
      }),
    recordError(failure) {
      error = failure;
    },
    cancelled: () => clientGone,
    telemetry: () => telemetry(),
  };
  return session;
};

/**
 * One timer per stream, re-armed with `refresh()` on every write: a silent backend (long reasoning,
 * held text) still shows life, with no allocation on the per-delta path.
 */
const createKeepAlive = (
  frame: string | undefined,
  everyMs: number,
  write: (frame: string) => Promise<unknown>,
) => {
  let timer: ReturnType<typeof setTimeout> | undefined;
  let stopped = frame === undefined || everyMs <= 0;
  const ping = () => {
    if (stopped || frame === undefined) return;
    void write(frame).then(() => timer?.refresh());
  };
  return {
    rearm() {
      if (stopped) return;
      if (timer) timer.refresh();
      else timer = setTimeout(ping, everyMs);
    },
    stop() {
      stopped = true;
      clearTimeout(timer);
    },
  };
};
