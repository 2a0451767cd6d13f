import { GatewayError } from "../errors/gateway-error.js";
import type { AssistantEvent } from "../events/assistant-event.js";
import type { BackendEvent } from "../events/backend-event.js";
import type { TurnRequest } from "../model/conversation.js";
import { type Finish, resolveFinishReason } from "../model/finish-reason.js";
import { callableTools, offeredTools } from "../model/tool-policy.js";
import type { ToolPolicy } from "../model/tool-spec.js";
import { addUsage, type Usage } from "../model/usage.js";
import { type Clock, systemClock } from "../ports/clock.js";
import type { IdGenerator } from "../ports/id-generator.js";
import type { BackendRequest, TextBackend } from "../ports/text-backend.js";
import { createArgumentsValidator, type SchemaCache } from "../tools/index.js";
import { createCallGate, type Violation } from "./call-gate.js";
import { chooseToolMode, correctiveRequest, createEventReader, renderForMode } from "./native-turn.js";
import type { TurnSettings } from "./turn-settings.js";
import { createTelemetry, type TurnTelemetry } from "./turn-telemetry.js";
import { createWatchdog } from "./watchdog.js";

export interface TurnDeps {
  readonly backend: TextBackend;
  readonly ids: IdGenerator;
  readonly clock?: Clock | undefined;
  /** Compiled tool schemas shared across turns (an app-wide cache); per turn if absent. */
  readonly schemas?: SchemaCache | undefined;
}

export interface TurnInput {
  readonly request: TurnRequest;
  readonly tools: ToolPolicy;
  readonly settings: TurnSettings;
  readonly signal: AbortSignal;
}

export interface TurnHandle {
  readonly events: AsyncIterable<AssistantEvent>;
  telemetry(): TurnTelemetry;
}

interface AttemptOutcome {
  readonly rawText: string;
  readonly finish?: Finish | undefined;
  readonly usage?: Usage | undefined;
  readonly stopped: boolean;
  readonly violation?: Violation | undefined;
  readonly error?: GatewayError | undefined;
  /** The error is a call the client saw start and that was cut off (never a tool-call finish). */
  readonly callCut?: boolean | undefined;
}

/**
 * Runs one client turn against a backend: picks the tool mode, renders tools and history, streams
 * the backend, reads tool calls (sentinel blocks in prompt mode, the model's own calls in native
 * mode), applies the tool policy (gate), retries once with a corrective turn on tool_choice/strict
 * violations, and yields the canonical assistant event stream.
 */
export const runTurn = (deps: TurnDeps, input: TurnInput): TurnHandle => {
  const { request, tools, settings, signal } = input;
  const clock = deps.clock ?? systemClock;
  const offered = offeredTools(tools);
  const telemetry = createTelemetry(offered.map((t) => t.name));
  const mode = chooseToolMode(settings.toolMode, deps.backend, tools, request.model);
  const rendered = renderForMode(mode instanceof GatewayError ? "prompt" : mode, request, tools, settings);
  telemetry.echoedCalls = rendered.echoedCalls;
  if (!(mode instanceof GatewayError)) telemetry.toolMode = mode;
  const toolMap = new Map(callableTools(tools).map((t) => [t.name, t]));
  const validator = offered.length > 0 ? createArgumentsValidator(offered, deps.schemas) : undefined;
  const gate = createCallGate({ policy: tools, settings, ids: deps.ids, telemetry });
  const deadlineAt = settings.requestTimeoutMs > 0 ? clock.now() + settings.requestTimeoutMs : 0;
  let started = false;

  async function* attempt(backendRequest: BackendRequest): AsyncGenerator<AssistantEvent, AttemptOutcome> {
    const controller = new AbortController();
    const abort = () => controller.abort();
    signal.addEventListener("abort", abort, { once: true });
    gate.beginAttempt();
    const reader = createEventReader(
      rendered.request.tools ? "native" : "prompt",
      toolMap,
      validator,
      settings,
    );
    const iterator = deps.backend
      .stream(backendRequest, { signal: controller.signal })
      [Symbol.asyncIterator]();
    let rawText = "";
    let finish: Finish | undefined;
    let usage: Usage | undefined;
    const watchdog = createWatchdog(settings.idleTimeoutMs, deadlineAt, clock.now);
    try {
      for (;;) {
        const next = await watchdog.next(iterator);
        if (next.kind === "failed") return { rawText, stopped: false, error: next.error };
        if (next.kind === "done") break;
        const event = next.event;
        switch (event.type) {
          case "stream-start":
            if (event.turnId !== undefined) telemetry.backendTurnId = event.turnId;
            if (!started) {
              started = true;
              yield event;
            }
            break;
          case "reasoning-delta":
            yield event;
            break;
          case "usage":
            usage = event.usage;
            break;
          case "finish":
            finish = event.finish;
            break;
          case "error":
            return { rawText, stopped: false, error: event.error };
          case "text-delta":
          case "tool-call-start":
          case "tool-call-delta":
          case "tool-call":
            if (event.type === "text-delta") rawText += event.delta;
            for (const parsed of reader.push(event)) {
              const result = gate.accept(parsed);
              yield* result.events;
              if (result.failure !== undefined)
                return { rawText, stopped: false, error: result.failure, callCut: true };
              if (result.violation !== undefined) {
                // The corrective turn's usage adds to this one's: ask the backend for it too.
                controller.abort();
                const drained = await drainUsage(iterator, usage);
                return { rawText, stopped: true, violation: result.violation, usage: drained };
              }
              if (result.stop) {
                controller.abort();
                return { rawText, stopped: true, usage: await drainUsage(iterator, usage) };
              }
            }
        }
      }
      for (const parsed of reader.flush()) {
        const result = gate.accept(parsed);
        yield* result.events;
        if (result.failure !== undefined)
          return { rawText, stopped: false, error: result.failure, callCut: true };
        if (result.violation !== undefined) return { rawText, stopped: false, violation: result.violation };
        if (result.stop) break;
      }
      return { rawText, finish, usage, stopped: false, violation: gate.endAttempt() };
    } finally {
      watchdog.dispose();
      signal.removeEventListener("abort", abort);
      controller.abort();
      void iterator.return?.()?.catch(() => undefined);
    }
  }

  /** After stopping the backend early, give it a moment (one deadline) to report real usage. */
  async function drainUsage(iterator: AsyncIterator<BackendEvent>, known: Usage | undefined) {
    let usage = known;
    const grace = createWatchdog(0, clock.now() + settings.stopGraceMs, clock.now);
    try {
      for (let next = await grace.next(iterator); next.kind === "event"; next = await grace.next(iterator)) {
        if (next.event.type === "usage") usage = next.event.usage;
      }
      return usage;
    } finally {
      grace.dispose();
    }
  }

  async function* events(): AsyncGenerator<AssistantEvent> {
    if (mode instanceof GatewayError) {
      yield { type: "error", error: mode };
      return;
    }
    // A strict tool whose schema cannot be compiled could never be enforced: refuse the request.
    const uncheckable = offered.find((t) => t.strict && validator?.schemaError(t.name) !== undefined);
    if (uncheckable) {
      const detail = validator?.schemaError(uncheckable.name);
      const message = `Invalid schema for strict function '${uncheckable.name}': ${detail}.`;
      yield {
        type: "error",
        error: new GatewayError("invalid_request", message, {
          param: "tools",
          code: "invalid_function_parameters",
        }),
      };
      return;
    }
    let backendRequest = rendered.request;
    let usage: Usage | undefined;
    for (let attemptNo = 0; ; attemptNo++) {
      const outcome = yield* attempt(backendRequest);
      if (outcome.usage) usage = addUsage(usage, outcome.usage);
      if (outcome.error) {
        // Calls the client already has in full stay usable: the turn ends as a tool-call turn and
        // the failure goes to telemetry. Only a call cut in the middle (or a gone client) fails it.
        if (gate.emittedCount() === 0 || outcome.callCut || gate.callOpen() || signal.aborted) {
          yield { type: "error", error: outcome.error };
          return;
        }
        telemetry.failureAfterCalls = outcome.error;
      }
      if (outcome.violation !== undefined) {
        gate.discardHeld();
        if (attemptNo < settings.correctiveRetries && !signal.aborted) {
          telemetry.retries++;
          backendRequest = correctiveRequest(backendRequest, outcome.rawText, outcome.violation.message);
          continue;
        }
        const message = `The model's reply broke the tool rules after ${telemetry.retries} corrective turn(s): ${outcome.violation.message}.`;
        yield { type: "error", error: new GatewayError(outcome.violation.kind, message) };
        return;
      }
      if (!outcome.stopped && outcome.finish === undefined && gate.emittedCount() === 0) {
        yield {
          type: "error",
          error: new GatewayError("backend_error", "The backend ended the turn without finishing it."),
        };
        return;
      }
      if (usage) yield { type: "usage", usage };
      yield { type: "finish", finish: resolveFinishReason(outcome.finish, gate.emittedCount()) };
      return;
    }
  }

  return {
    events: events(),
    telemetry: () => Object.freeze({ ...telemetry, callIds: Object.freeze([...telemetry.callIds]) }),
  };
};
