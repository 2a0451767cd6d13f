import {
  type AssistantEvent,
  type GatewayError,
  type ToolPolicy,
  type TurnRequest,
  toGatewayError,
} from "@proxy/core";
import {
  type AssistantBatch,
  inlineRemoteImages,
  runCompactingTurn,
  runTurn,
  type TurnSettings,
  type TurnTelemetry,
} from "@proxy/core/gateway";
import type { Context } from "hono";
import { errorResponse, namingInput } from "../errors/http-error.js";
import { requestCaller } from "../request/caller.js";
import { watchClient, watchSignal } from "../request/connection.js";
import { streamTurnAnswer, writeStallDelay } from "../stream/answer.js";
import type { SseSink } from "../stream/sse-sink.js";
import type { SurfaceDeps } from "../surface/deps.js";
import type { SurfaceProfile } from "../surface/profile.js";
import { createTurnAbort } from "./abort.js";
import { acceptOrRefuse, readFirstBatch } from "./accept.js";
import { createTurnReport } from "./report.js";
import { resolveRequestSettings } from "./settings.js";

export interface TurnStart {
  readonly request: TurnRequest;
  readonly tools: ToolPolicy;
  readonly stream: boolean;
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
 * One object per request between an HTTP surface and `runTurn`: it resolves the output mode
 * (request-settings.ts), owns the request's single AbortController (turn-abort.ts), tells "accepted"
 * from "refused before the first byte" the same way for every surface (accept-turn.ts), guarantees
 * exactly one terminal event, writes keep-alives in the surface's form (turn-stream.ts), and reports
 * one frozen turn summary exactly once (turn-report.ts).
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
  const settings = resolveRequestSettings(c, deps, profile);
  const abort = createTurnAbort(options.signal ? watchSignal(options.signal) : watchClient(c));
  const report = createTurnReport(c, deps, profile, arrivedAt);
  const end = () => {
    if (report.reported()) return;
    abort.detach();
    report.report(settings.current().outputMode, abort.cancelledByClient());
  };

  const session: TurnSession = {
    get settings() {
      return settings.current();
    },
    useModel: settings.useModel,
    signal: abort.signal,
    async start(turn) {
      report.decoded(turn.request.model, turn.stream);
      settings.useModel(turn.request.model);
      const caller = requestCaller(c);
      let request: TurnRequest = { ...turn.request, partition: caller?.owner ?? "", caller };
      // Remote images are fetched before any backend turn runs; a refused one is a 400 naming it.
      if (deps.media !== undefined) {
        try {
          request = await inlineRemoteImages(request, deps.media, abort.signal);
        } catch (e) {
          return { accepted: false, response: session.fail(e) };
        }
      }
      const turnSettings = settings.current();
      const { trace } = report;
      trace?.onTurnStart({
        api: profile.api,
        request,
        tools: turn.tools,
        stream: turn.stream,
        settings: turnSettings,
      });
      // A request that may compact first (Anthropic's compact edit) is one stream of up to two turns.
      const run = request.compactFirst === undefined ? runTurn : runCompactingTurn;
      const handle = run(
        {
          backend: deps.backend,
          ids: deps.ids,
          clock: deps.clock,
          schemas: deps.schemas,
          tokens: deps.tokens,
        },
        { request, tools: turn.tools, settings: turnSettings, signal: abort.signal, trace },
      );
      report.running(handle.telemetry);
      c.set("turn", handle);
      const iterator = handle.batches[Symbol.asyncIterator]();
      // The backend accepts or refuses the turn before the first byte: a refusal is an HTTP status.
      const first = await readFirstBatch(iterator);
      report.accepted();
      const cap = (turn.heldWhole ?? !turn.stream) ? deps.maxAnswerChars : Number.POSITIVE_INFINITY;
      const acceptance = await acceptOrRefuse(iterator, first, report.watcher, cap);
      return acceptance.accepted ? acceptance : { accepted: false, response: session.fail(acceptance.error) };
    },
    fail(failure) {
      const error = namingInput(toGatewayError(failure), profile.inputParam);
      report.failed(error);
      report.firstByte();
      end();
      return errorResponse(c, error, profile.errorBody, profile.errorStatus);
    },
    json(body) {
      report.firstByte();
      end();
      return c.json(body as object);
    },
    stream(write) {
      const { requestTimeoutMs } = deps.settings;
      const deadlineAt = requestTimeoutMs > 0 ? arrivedAt + requestTimeoutMs : 0;
      return streamTurnAnswer(
        c,
        {
          abort,
          keepAliveFrame: profile.keepAliveFrame,
          keepAliveMs: deps.keepAliveMs,
          stallDelay: writeStallDelay(deps.writeTimeoutMs, deadlineAt, deps.clock),
          onWrite: report.firstByte,
          onStall: report.failed,
          onError: report.recordError,
          onEnd: end,
        },
        write,
      );
    },
    recordError: report.recordError,
    cancelled: abort.isClientGone,
    telemetry: report.telemetry,
  };
  return session;
};
