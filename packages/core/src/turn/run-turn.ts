import { GatewayError, withInputTokens } from "../errors/gateway-error.js";
import type { AssistantEvent } from "../events/stream-event.js";
import type { TurnRequest } from "../model/conversation.js";
import { resolveFinishReason } from "../model/finish-reason.js";
import { callableTools, offeredTools } from "../model/tool-policy.js";
import type { ToolPolicy } from "../model/tool-spec.js";
import { addUsage, type Usage } from "../model/usage.js";
import { flattenBatches } from "../ports/backend-stream.js";
import { type Clock, systemClock } from "../ports/clock.js";
import type { IdGenerator } from "../ports/id-generator.js";
import type { TextBackend } from "../ports/text-backend.js";
import type { TokenEncoding } from "../ports/token-encoding.js";
import { createArgumentsValidator, type SchemaCache } from "../tools/index.js";
import { createCallGate } from "./call-gate.js";
import { withCompaction } from "./compaction-turn.js";
import { chooseToolMode, correctiveRequest, renderForMode } from "./native-turn.js";
import { type AttemptContext, runAttempt } from "./turn-attempt.js";
import type { TurnSettings } from "./turn-settings.js";
import { createTelemetry, type TurnTelemetry } from "./turn-telemetry.js";
import type { TurnTrace } from "./turn-trace.js";
import { createUsageMeter, estimatePromptTokens } from "./usage-meter.js";

export interface TurnDeps {
  readonly backend: TextBackend;
  readonly ids: IdGenerator;
  readonly clock?: Clock | undefined;
  /** The tokenizer for output token limits (`maxOutputTokens`). */
  readonly tokens: TokenEncoding;
  /** Compiled tool schemas shared across turns (an app-wide cache); per turn if absent. */
  readonly schemas?: SchemaCache | undefined;
}

export interface TurnInput {
  readonly request: TurnRequest;
  readonly tools: ToolPolicy;
  readonly settings: TurnSettings;
  readonly signal: AbortSignal;
  /** Records the turn for the request inspector; absent, nothing is recorded or copied. */
  readonly trace?: TurnTrace | undefined;
  /**
   * The client reads the answer whole, not streamed: a call is passed on only once it is complete,
   * so a block that turns out not to be a call (arguments that cannot be kept whole) stays text.
   */
  readonly wholeAnswer?: boolean | undefined;
}

export interface TurnHandle {
  /** The turn's events, one batch per backend batch: what the HTTP surfaces write, once each. */
  readonly batches: AsyncIterable<AssistantBatch>;
  /** The same events one by one (a flattening view of `batches`). */
  readonly events: AsyncIterable<AssistantEvent>;
  /** A snapshot of everything so far; mid-turn its usage may be estimated (the prompt tokenized). */
  telemetry(): TurnTelemetry;
  /** The route that took the turn so far (`telemetry().route`, without the snapshot). */
  route(): string | undefined;
}

/** Assistant events produced in one synchronous pass over a backend batch (never empty). */
export type AssistantBatch = ReadonlyArray<AssistantEvent>;

/**
 * Runs one client turn against a backend: picks the tool mode, renders tools and history, streams
 * the backend, reads tool calls (sentinel blocks in prompt mode, the model's own calls in native
 * mode), applies the tool policy (gate), retries once with a corrective turn on tool_choice/strict
 * violations, and yields the canonical assistant event stream.
 */
export const runTurn = (deps: TurnDeps, input: TurnInput): TurnHandle => {
  const { request, settings, signal } = input;
  const tools = input.tools.parallelDefaulted
    ? { ...input.tools, parallel: settings.parallelToolCalls }
    : input.tools;
  const clock = deps.clock ?? systemClock;
  const offered = offeredTools(tools);
  const telemetry = createTelemetry(offered.map((t) => t.name));
  const mode = chooseToolMode(settings.toolMode, deps.backend, tools, request.model);
  const rendered = withCompaction(
    renderForMode(mode instanceof GatewayError ? "prompt" : mode, request, tools, settings),
    deps.backend,
    request,
    settings,
  );
  telemetry.echoedCalls = rendered.echoedCalls;
  if (!(mode instanceof GatewayError)) telemetry.toolMode = mode;
  const toolMap = new Map(callableTools(tools).map((t) => [t.name, t]));
  const validator = offered.length > 0 ? createArgumentsValidator(offered, deps.schemas) : undefined;
  const gate = createCallGate({
    policy: tools,
    settings,
    ids: deps.ids,
    telemetry,
    holdCalls: input.wholeAnswer === true,
  });
  const deadlineAt = settings.requestTimeoutMs > 0 ? clock.now() + settings.requestTimeoutMs : 0;
  const meter = createUsageMeter(deps.tokens);
  const attemptContext: AttemptContext = {
    backend: deps.backend,
    clock,
    tokens: deps.tokens,
    request,
    settings,
    signal,
    deadlineAt,
    native: rendered.request.tools !== undefined,
    // A long answer without tools is never held whole: no corrective turn can need it.
    keepText: offered.length > 0 && settings.correctiveRetries > 0,
    tools: toolMap,
    validator,
    gate,
    telemetry,
    started: false,
    trace: input.trace,
    meter,
  };

  async function* batches(): AsyncGenerator<AssistantBatch> {
    if (mode instanceof GatewayError) {
      yield [{ type: "error", error: mode }];
      return;
    }
    // A strict tool whose schema cannot be compiled could never be enforced, and a tool whose
    // schema is `false` could never be called: refuse the request.
    const uncheckable = offered.find(
      (t) =>
        validator?.unsatisfiable(t.name) !== undefined ||
        (t.strict && validator?.schemaError(t.name) !== undefined),
    );
    if (uncheckable) {
      const detail = validator?.unsatisfiable(uncheckable.name) ?? validator?.schemaError(uncheckable.name);
      const kind = uncheckable.strict ? "strict function" : "function";
      const message = `Invalid schema for ${kind} '${uncheckable.name}': ${detail}.`;
      const error = new GatewayError("invalid_request", message, {
        param: "tools",
        code: "invalid_function_parameters",
      });
      yield [{ type: "error", error }];
      return;
    }
    let backendRequest = rendered.request;
    let usage: Usage | undefined;
    for (let attemptNo = 0; ; attemptNo++) {
      input.trace?.onBackendRequest(backendRequest, attemptNo);
      meter.begin(backendRequest);
      const outcome = yield* runAttempt(attemptContext, backendRequest);
      meter.end(outcome.usage);
      input.trace?.onAttemptEnd(outcome, attemptNo);
      const tail = outcome.tail;
      if (outcome.usage) usage = addUsage(usage, outcome.usage);
      if (outcome.error) {
        // Calls the client already has in full stay usable: the turn ends as a tool-call turn and
        // the failure goes to telemetry. Only a call cut in the middle (or a gone client) fails it.
        if (gate.emittedCount() === 0 || outcome.callCut || gate.callOpen() || signal.aborted) {
          // A full context is told in tokens: the backend's count, else the gateway's estimate.
          const error =
            outcome.error.kind === "context_length_exceeded"
              ? withInputTokens(outcome.error, estimatePromptTokens(deps.tokens, backendRequest))
              : outcome.error;
          tail.push({ type: "error", error });
          yield tail;
          return;
        }
        telemetry.failureAfterCalls = outcome.error;
      }
      if (outcome.violation !== undefined) {
        gate.discardHeld();
        if (attemptNo < settings.correctiveRetries && !signal.aborted) {
          telemetry.retries++;
          if (tail.length > 0) yield tail;
          backendRequest = correctiveRequest(backendRequest, outcome.rawText, outcome.violation.message);
          continue;
        }
        const message = `The model's reply broke the tool rules after ${telemetry.retries} corrective turn(s): ${outcome.violation.message}.`;
        tail.push({ type: "error", error: new GatewayError(outcome.violation.kind, message) });
        yield tail;
        return;
      }
      if (!outcome.stopped && outcome.finish === undefined && gate.emittedCount() === 0) {
        const error = new GatewayError("backend_error", "The backend ended the turn without finishing it.");
        tail.push({ type: "error", error });
        yield tail;
        return;
      }
      if (usage) tail.push({ type: "usage", usage });
      tail.push({ type: "finish", finish: resolveFinishReason(outcome.finish, gate.emittedCount()) });
      yield tail;
      return;
    }
  }

  const turnBatches = input.trace === undefined ? batches() : traced(batches(), input.trace);
  return {
    batches: turnBatches,
    events: flattenBatches(turnBatches),
    // Usage as accounted: what the backend reported, estimated for attempts it never reported on
    // (a client gone mid-stream included); the client's own usage events carry the reported part.
    telemetry: () =>
      Object.freeze({ ...telemetry, usage: meter.usage(), callIds: Object.freeze([...telemetry.callIds]) }),
    route: () => telemetry.route,
  };
};

/** The turn's batches, each shown to the trace before the surface gets it. */
async function* traced(
  source: AsyncIterable<AssistantBatch>,
  trace: TurnTrace,
): AsyncGenerator<AssistantBatch> {
  for await (const batch of source) {
    trace.onAssistantBatch(batch);
    yield batch;
  }
}
