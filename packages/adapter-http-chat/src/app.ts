import {
  type AssistantEvent,
  type Clock,
  createRandomIdGenerator,
  createSchemaCache,
  createTelemetry,
  DEFAULT_TURN_SETTINGS,
  GatewayError,
  type IdGenerator,
  resolveOutputMode,
  resolveToolMode,
  runTurn,
  systemClock,
  type TextBackend,
  type TurnObserver,
  type TurnSettings,
  toGatewayError,
  unixSeconds,
} from "@proxy/core";
import { Hono } from "hono";
import { decodeChatRequest } from "./decode-request.js";
import { completeChatCompletion, errorResponse } from "./json-response.js";
import { nextEvent, type StartedTurn, setModeHeaders, type TurnOutcome } from "./started-turn.js";
import { streamChatCompletion } from "./stream-response.js";

export interface ChatCompletionsDeps {
  readonly backend: TextBackend;
  /** Random ids by default; tests pass a counting generator for reproducible transcripts. */
  readonly ids?: IdGenerator | undefined;
  readonly clock?: Clock | undefined;
  readonly settings?: Partial<TurnSettings> | undefined;
  /** Told once per request, when its response ends (logs/metrics live in the composition root). */
  readonly observer?: TurnObserver | undefined;
  /** Idle time after which a stream gets a `: ping` comment (keeps proxies from closing it); 0 = off. */
  readonly keepAliveMs?: number | undefined;
}

/**
 * A Hono sub-app serving `POST /chat/completions` (mount it at `/v1`). It answers its own errors in
 * OpenAI's shape, so it also works standalone or inside another Hono server.
 */
export const createChatCompletionsApp = (deps: ChatCompletionsDeps): Hono => {
  const ids = deps.ids ?? createRandomIdGenerator();
  const clock = deps.clock ?? systemClock;
  const baseSettings: TurnSettings = { ...DEFAULT_TURN_SETTINGS, ...deps.settings };
  // Clients resend the same tools every turn: compile each schema once per app, not per request.
  const schemas = createSchemaCache();
  const app = new Hono();

  app.post("/chat/completions", async (c) => {
    const arrivedAt = clock.now();
    const outputMode = resolveOutputMode(c.req.header("x-proxy-output-mode"), baseSettings.outputMode);
    const toolMode = resolveToolMode(c.req.header("x-proxy-tool-mode"), baseSettings.toolMode);
    const settings: TurnSettings = { ...baseSettings, outputMode, toolMode };
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
        api: "chat",
        model,
        stream,
        outputMode,
        telemetry: telemetry(),
        ...outcome,
      });
    };
    setModeHeaders(c, outputMode, settings);

    let plan: ReturnType<typeof decodeChatRequest>;
    try {
      plan = decodeChatRequest(await c.req.text());
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
      plan,
      settings,
      meta: {
        id: ids.next("chatcmpl").replace(/^chatcmpl_/, "chatcmpl-"),
        created: unixSeconds(clock),
        model: plan.request.model,
      },
      events,
      telemetry: handle.telemetry,
      abort: () => controller.abort(),
      cancelled: () => signal.aborted,
      elapsedMs: () => clock.now() - arrivedAt,
      keepAliveMs: deps.keepAliveMs ?? 15_000,
      end,
    };
    return plan.stream ? streamChatCompletion(c, turn) : completeChatCompletion(c, turn);
  });

  app.onError((err, c) => errorResponse(c, toGatewayError(err)));
  return app;
};
