import {
  type AssistantEvent,
  type Clock,
  createRandomIdGenerator,
  createSchemaCache,
  createTelemetry,
  DEFAULT_TURN_SETTINGS,
  GatewayError,
  type IdGenerator,
  runTurn,
  systemClock,
  type TextBackend,
  type TurnObserver,
  type TurnSettings,
  toGatewayError,
} from "@proxy/core";
import { Hono, type MiddlewareHandler } from "hono";
import { completeMessage } from "./http/complete-message.js";
import { countInputTokens } from "./http/count-tokens.js";
import { errorResponse, requestIdOf } from "./http/error-response.js";
import { nextEvent, type StartedTurn, type TurnOutcome } from "./http/started-turn.js";
import { streamMessage } from "./http/stream-message.js";
import { decodeMessagesRequest, type MessagesTurnPlan } from "./request/decode-request.js";

export interface MessagesDeps {
  readonly backend: TextBackend;
  /** Random ids by default; tests pass a counting generator for reproducible transcripts. */
  readonly ids?: IdGenerator | undefined;
  readonly clock?: Clock | undefined;
  readonly settings?: Partial<TurnSettings> | undefined;
  /** Told once per request, when its response ends (logs/metrics live in the composition root). */
  readonly observer?: TurnObserver | undefined;
  /** Idle time after which a stream gets an `event: ping`; 0 = off. */
  readonly keepAliveMs?: number | undefined;
  /**
   * The host's middleware for these routes (auth, body limit), run inside this app so that what
   * they throw is answered in Anthropic's shape too.
   */
  readonly guards?: ReadonlyArray<MiddlewareHandler> | undefined;
}

/**
 * A Hono sub-app serving the Anthropic Messages API — `POST /messages` and
 * `POST /messages/count_tokens` (mount it at `/v1`; query strings such as `?beta=true` are ignored).
 * It answers its own errors in Anthropic's shape and puts a `request-id` header on every response.
 */
export const createMessagesApp = (deps: MessagesDeps): Hono => {
  const ids = deps.ids ?? createRandomIdGenerator();
  const clock = deps.clock ?? systemClock;
  // The sentinel format is the JSON one: `<use_tool>` XML is an OpenAI-surface (Copilot) matter.
  const settings: TurnSettings = { ...DEFAULT_TURN_SETTINGS, ...deps.settings, outputMode: "openai-json" };
  // Claude Code resends the same tools every turn: compile each schema once per app, not per request.
  const schemas = createSchemaCache();
  const app = new Hono();
  for (const guard of deps.guards ?? []) app.use("/messages/*", guard);

  app.post("/messages/count_tokens", async (c) => {
    requestIdOf(c);
    return c.json({ input_tokens: countInputTokens(await c.req.text()) });
  });

  app.post("/messages", async (c) => {
    requestIdOf(c);
    const arrivedAt = clock.now();
    let ended = false;
    const report = (
      model: string,
      stream: boolean,
      telemetry: StartedTurn["telemetry"],
      outcome: TurnOutcome,
    ) => {
      if (ended) return;
      ended = true;
      deps.observer?.onTurnEnd({
        api: "messages",
        model,
        stream,
        outputMode: settings.outputMode,
        telemetry: telemetry(),
        ...outcome,
      });
    };

    let plan: MessagesTurnPlan;
    try {
      plan = decodeMessagesRequest(await c.req.text());
    } catch (e) {
      const error = toGatewayError(e);
      report("", false, () => createTelemetry([]), { error });
      return errorResponse(c, error);
    }

    const controller = new AbortController();
    const signal = AbortSignal.any([controller.signal, c.req.raw.signal]);
    const handle = runTurn(
      { backend: deps.backend, ids, clock, schemas },
      { request: plan.request, tools: plan.tools, settings, signal },
    );
    const events = handle.events[Symbol.asyncIterator]();
    const end = (outcome: TurnOutcome) => report(plan.request.model, plan.stream, handle.telemetry, outcome);

    // The backend accepts or refuses the turn before the first byte: a refusal is an HTTP status.
    const head = await nextEvent(events).catch(
      (e: unknown): AssistantEvent => ({ type: "error", error: toGatewayError(e) }),
    );
    if (head?.type !== "stream-start") {
      const error =
        head?.type === "error"
          ? head.error
          : new GatewayError("backend_error", "The turn ended before it started.");
      end({ error });
      return errorResponse(c, error);
    }

    const turn: StartedTurn = {
      meta: { id: ids.next("msg"), model: plan.request.model },
      head,
      events,
      telemetry: handle.telemetry,
      abort: () => controller.abort(),
      cancelled: () => signal.aborted,
      elapsedMs: () => clock.now() - arrivedAt,
      keepAliveMs: deps.keepAliveMs ?? 15_000,
      end,
    };
    return plan.stream ? streamMessage(c, turn) : completeMessage(c, turn);
  });

  app.onError((err, c) => errorResponse(c, toGatewayError(err)));
  return app;
};
