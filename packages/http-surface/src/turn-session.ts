import {
  type AssistantBatch,
  type AssistantEvent,
  createTelemetry,
  type FinishReason,
  flattenBatches,
  GatewayError,
  inlineRemoteImages,
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
import { callerOwner, requestCaller } from "./caller.js";
import {
  type ErrorBodyShaper,
  type ErrorStatusOverride,
  errorResponse,
  httpStatusFor,
  namingInput,
} from "./http-error.js";
import { SSE_HEADERS } from "./sse-body.js";
import { createSseStream, type SseSink } from "./sse-sink.js";
import type { SurfaceDeps } from "./surface-deps.js";
import { terminatedBatches } from "./terminated-turn.js";
import { setModeHeaders } from "./turn-headers.js";

export type { SseSink } from "./sse-sink.js";
export { unfinishedTurn } from "./terminated-turn.js";

/** What makes one surface's session differ from another's. */
export interface SurfaceProfile {
  /** The surface's name in turn summaries, logs and metrics (`chat`, `responses`, …). */
  readonly api: string;
  /** The surface's error body, for HTTP errors and its streams' terminal error. */
  readonly errorBody: ErrorBodyShaper;
  /** The surface's status where it differs from the kit's table (optional). */
  readonly errorStatus?: ErrorStatusOverride | undefined;
  /** Written to a stream after `keepAliveMs` of silence; undefined = the surface sends none. */
  readonly keepAliveFrame: string | undefined;
  /** The surface reports the output and stop-after-tools modes in response headers. */
  readonly modeHeaders?: boolean | undefined;
  /** The surface's conversation field (`messages`, `input`, `contents`): named when a backend finds the input too long. */
  readonly inputParam?: string | undefined;
}

/** The OpenAI surfaces' keep-alive: an SSE comment every SSE parser skips. */
export const SSE_COMMENT_KEEP_ALIVE = ": ping\n\n";

export interface TurnStart {
  readonly request: TurnRequest;
  readonly tools: ToolPolicy;
  readonly stream: boolean;
  /** Replaces the session's settings for this turn (rarely needed). */
  readonly settings?: TurnSettings | undefined;
  /**
   * The whole answer is held in memory (default: when not streaming; a background turn's log holds
   * it too): it is then capped at `maxAnswerChars`.
   */
  readonly heldWhole?: boolean | undefined;
}

export type StartedTurn =
  /**
   * The backend accepted the turn: its events after `stream-start`, ending in exactly one `finish`
   * or `error`, as batches (a surface encodes a batch and writes it once) or one by one; read one.
   */
  | {
      readonly accepted: true;
      readonly batches: AsyncIterable<AssistantBatch>;
      readonly events: AsyncIterable<AssistantEvent>;
    }
  /** Refused before the first byte: the surface's HTTP error, already reported. */
  | { readonly accepted: false; readonly response: Response };

export interface TurnSession {
  /**
   * The deployment's settings with this request's modes: the `x-proxy-*-mode` headers, then the
   * model's route (once `useModel` or `start` named the model), then the deployment's defaults.
   */
  readonly settings: TurnSettings;
  /** Resolves the settings for the request's model (`start` does it too); call it before reading modes early. */
  useModel(model: string): TurnSettings;
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

/**
 * Closes the socket under a Node server (`@hono/node-server` puts the response in `c.env.outgoing`).
 * Elsewhere the caller errors the body instead, which the runtime turns into a dropped connection.
 */
const dropConnection = (c: Context): boolean => {
  const outgoing = (c.env as { outgoing?: { destroy?: () => void } } | undefined)?.outgoing;
  if (typeof outgoing?.destroy !== "function") return false;
  outgoing.destroy();
  return true;
};

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
  const outputHeader = c.req.header("x-proxy-output-mode");
  const toolMode = resolveToolMode(c.req.header("x-proxy-tool-mode"), deps.settings.toolMode);
  /** The one place a request's modes are decided: header, then the model's route, then the default. */
  const settingsFor = (model: string | undefined): TurnSettings => {
    const route = model === undefined ? undefined : deps.routeSettings?.(model);
    const outputMode = resolveOutputMode(outputHeader, route?.outputMode ?? deps.settings.outputMode);
    const resolved: TurnSettings = { ...deps.settings, outputMode, toolMode };
    if (profile.modeHeaders === true) setModeHeaders(c, resolved);
    return resolved;
  };
  let settings = settingsFor(undefined);
  let settledModel: string | undefined;
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
  let decodedMs: number | undefined;
  let acceptedMs: number | undefined;
  let reported = false;
  const trace = deps.trace?.(c);
  let stalled = false;
  const deadlineAt = settings.requestTimeoutMs > 0 ? arrivedAt + settings.requestTimeoutMs : 0;
  /** How long a blocked write may wait: the write timeout, cut short by the request deadline. */
  const stallDelay = (): number | undefined => {
    const write = deps.writeTimeoutMs > 0 ? deps.writeTimeoutMs : Number.POSITIVE_INFINITY;
    const deadline = deadlineAt > 0 ? Math.max(0, deadlineAt - deps.clock.now()) : Number.POSITIVE_INFINITY;
    const ms = Math.min(write, deadline);
    return Number.isFinite(ms) ? ms : undefined;
  };

  const markFirstByte = () => {
    ttfbMs ??= deps.clock.now() - arrivedAt;
  };
  const report = () => {
    if (reported) return;
    reported = true;
    clientSignal.removeEventListener("abort", abort);
    if (clientGone && !stalled) error = new GatewayError("cancelled", "The client closed the connection.");
    const summary: TurnSummary = Object.freeze({
      api: profile.api,
      model,
      stream,
      outputMode: settings.outputMode,
      telemetry: Object.freeze(telemetry()),
      finish: error === undefined ? finish : undefined,
      error,
      ttfbMs,
      caller: requestCaller(c),
      timings: { arrivedAt, decodedMs, acceptedMs, endedMs: deps.clock.now() - arrivedAt },
    });
    deps.observer?.onTurnEnd(summary);
    if (trace !== undefined) {
      if (error !== undefined) trace.onTurnError(error, profile.errorBody(error, httpStatusFor(error)));
      trace.onTurnEnd(summary);
    }
  };

  /** The session's error once the turn ends: an `error` event's, unless one was recorded first. */
  const watcher = {
    ended(event: AssistantEvent): GatewayError | undefined {
      if (event.type === "finish") finish = event.finish.reason;
      else if (event.type === "error") error ??= event.error;
      return error;
    },
  };

  const session: TurnSession = {
    get settings() {
      return settings;
    },
    useModel(name) {
      if (settledModel !== name) {
        settledModel = name;
        settings = settingsFor(name);
      }
      return settings;
    },
    signal: controller.signal,
    async start(turn) {
      model = turn.request.model;
      decodedMs = deps.clock.now() - arrivedAt;
      session.useModel(model);
      stream = turn.stream;
      let request: TurnRequest = { ...turn.request, partition: callerOwner(c) };
      // Remote images are fetched before any backend turn runs; a refused one is a 400 naming it.
      if (deps.media !== undefined) {
        try {
          request = await inlineRemoteImages(request, deps.media, controller.signal);
        } catch (e) {
          return { accepted: false, response: session.fail(e) };
        }
      }
      const turnSettings = turn.settings ?? settings;
      trace?.onTurnStart({ api: profile.api, request, tools: turn.tools, stream, settings: turnSettings });
      const handle = runTurn(
        {
          backend: deps.backend,
          ids: deps.ids,
          clock: deps.clock,
          schemas: deps.schemas,
          tokens: deps.tokens,
        },
        { request, tools: turn.tools, settings: turnSettings, signal: controller.signal, trace },
      );
      telemetry = handle.telemetry;
      const iterator = handle.batches[Symbol.asyncIterator]();
      // The backend accepts or refuses the turn before the first byte: a refusal is an HTTP status.
      const first = await iterator.next().then(
        (r): AssistantBatch =>
          r.done === true
            ? [
                {
                  type: "error",
                  error: new GatewayError("backend_error", "The turn ended before it started."),
                },
              ]
            : r.value,
        (e: unknown): AssistantBatch => [{ type: "error", error: toGatewayError(e) }],
      );
      acceptedMs = deps.clock.now() - arrivedAt;
      const head = first[0];
      if (head?.type === "error") {
        await iterator.return?.();
        return { accepted: false, response: session.fail(head.error) };
      }
      const rest = head?.type === "stream-start" ? first.slice(1) : first;
      const cap = (turn.heldWhole ?? !turn.stream) ? deps.maxAnswerChars : Number.POSITIVE_INFINITY;
      const batches = {
        [Symbol.asyncIterator]: () => terminatedBatches(iterator, rest, watcher, cap),
      };
      return { accepted: true, batches, events: flattenBatches(batches) };
    },
    fail(failure) {
      error = namingInput(toGatewayError(failure), profile.inputParam);
      markFirstByte();
      report();
      return errorResponse(c, error, profile.errorBody, profile.errorStatus);
    },
    json(body) {
      markFirstByte();
      report();
      return c.json(body as object);
    },
    stream(write) {
      const sse = createSseStream({
        onCancel: abort,
        onStall: (body) => {
          // The client stopped reading: drop it, free the backend slot, interrupt the backend turn.
          error = new GatewayError("timeout", "The client stopped reading the stream.");
          stalled = true;
          controller.abort();
          if (dropConnection(c)) body.detach();
          else body.abort(error);
        },
        stallDelay,
        onWrite: markFirstByte,
        signal: controller.signal,
        keepAliveFrame: profile.keepAliveFrame,
        keepAliveMs: deps.keepAliveMs,
      });
      void write(sse.sink)
        .catch((e: unknown) => session.recordError(toGatewayError(e)))
        .finally(() => {
          sse.close();
          report();
        });
      return c.body(sse.body.readable, 200, SSE_HEADERS);
    },
    recordError(failure) {
      error ??= failure;
    },
    cancelled: () => clientGone,
    telemetry: () => telemetry(),
  };
  return session;
};
