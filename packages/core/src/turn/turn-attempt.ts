import type { AssistantEvent, BackendEvent } from "../events/stream-event.js";
import type { TurnRequest } from "../model/conversation.js";
import type { Finish } from "../model/finish-reason.js";
import type { ToolSpec } from "../model/tool-spec.js";
import type { Usage } from "../model/usage.js";
import { createOutputGuard } from "../output/output-guard.js";
import { createOutputTokenBudget } from "../output/output-token-budget.js";
import type { ArgumentsValidator } from "../parser/parser-types.js";
import type { Clock } from "../ports/clock.js";
import type { BackendBatch, BackendRequest, TextBackend } from "../ports/text-backend.js";
import type { TokenEncoding } from "../ports/token-encoding.js";
import type { AttemptOutcome } from "./attempt-outcome.js";
import { AttemptPipeline } from "./attempt-pipeline.js";
import type { CallGate } from "./call-gate.js";
import type { ReadEvent } from "./native-calls.js";
import { createEventReader } from "./native-turn.js";
import type { TurnSettings } from "./turn-settings.js";
import type { TurnCounters } from "./turn-telemetry.js";
import type { TurnTrace } from "./turn-trace.js";
import type { UsageMeter } from "./usage-meter.js";
import { createWatchdog } from "./watchdog.js";

export type { AttemptOutcome };

export interface AttemptContext {
  readonly backend: TextBackend;
  readonly clock: Clock;
  readonly tokens: TokenEncoding;
  readonly request: TurnRequest;
  readonly settings: TurnSettings;
  readonly signal: AbortSignal;
  readonly deadlineAt: number;
  readonly native: boolean;
  /** Keep the attempt's text for a corrective turn (only tool rules can call for one). */
  readonly keepText: boolean;
  readonly tools: ReadonlyMap<string, ToolSpec>;
  readonly validator: ArgumentsValidator | undefined;
  readonly gate: CallGate;
  readonly telemetry: TurnCounters;
  /** The turn's `stream-start` went out already (a corrective attempt sends none). */
  started: boolean;
  /** The request inspector's observer, when one is recording this turn. */
  readonly trace?: TurnTrace | undefined;
  /** What the attempts used, reported or estimated (accounting). */
  readonly meter: UsageMeter;
}

/** Ends the attempt; `drain` asks the stopped backend for its usage first. */
type End = Omit<AttemptOutcome, "tail" | "rawText"> & { readonly drain?: boolean };

const stopSequence = (sequence: string | undefined): Finish => ({
  reason: "stop",
  raw: "stop_sequence",
  stopSequence: sequence,
});
const LENGTH: Finish = { reason: "length", raw: "max_output_tokens" };

/** The model output an event carries, as counted against an output token limit. */
const outputOf = (event: BackendEvent): string =>
  event.type === "text-delta" || event.type === "tool-call-delta" ? event.delta : "";

/**
 * One backend attempt: reads the backend batch by batch and runs the reader (sentinel parser or
 * native calls), gate, output guard and token budget synchronously over each batch, yielding one
 * batch of assistant events per backend batch. The events of the batch that ends the attempt are
 * returned in `tail` instead, so the turn can add its terminal events and send them together.
 */
export async function* runAttempt(
  ctx: AttemptContext,
  backendRequest: BackendRequest,
): AsyncGenerator<AssistantEvent[], AttemptOutcome> {
  const { gate, telemetry, settings, trace, meter } = ctx;
  const controller = new AbortController();
  const abort = () => controller.abort();
  ctx.signal.addEventListener("abort", abort, { once: true });
  gate.beginAttempt();
  const reader = createEventReader(ctx.native ? "native" : "prompt", ctx.tools, ctx.validator, settings);
  const budget =
    ctx.request.maxOutputTokens === undefined
      ? undefined
      : createOutputTokenBudget(ctx.request.maxOutputTokens, ctx.tokens);
  const guard = createOutputGuard({
    stopSequences: ctx.request.stopSequences,
    holdCalls: budget !== undefined,
  });
  const iterator = ctx.backend
    .stream(backendRequest, { signal: controller.signal, abort })
    .batches()
    [Symbol.asyncIterator]();
  let rawText = "";
  let finish: Finish | undefined;
  let usage: Usage | undefined;
  const pipeline = new AttemptPipeline(gate, guard, trace);
  let out = pipeline.out;
  const emit = (events: ReadonlyArray<AssistantEvent>) => {
    for (const event of events) out.push(event);
  };

  /** Feeds one text or call event through budget, reader, gate and guard. */
  const feed = (event: ReadEvent): End | undefined => {
    // Past the output limit only the text within it goes on; a native call it cuts is dropped.
    const scan = budget?.push(outputOf(event));
    const kept = scan?.exhausted && event.type === "text-delta" ? { ...event, delta: scan.accepted } : event;
    if (kept.type === "text-delta" && ctx.keepText) rawText += kept.delta;
    if (!(scan?.exhausted && kept.type !== "text-delta")) {
      reader.pushTo(kept, pipeline);
      const halt = pipeline.halt;
      if (halt !== undefined) {
        if (halt.kind === "failure") return { stopped: false, error: halt.error, callCut: true };
        // The corrective turn's usage adds to this one's: ask the backend for it too.
        if (halt.kind === "violation") return { stopped: true, violation: halt.violation, drain: true };
        const stopped = halt.byGuard ? stopSequence(halt.sequence) : undefined;
        return { stopped: true, finish: stopped, drain: true };
      }
    }
    if (!scan?.exhausted) return undefined;
    emit(guard.flush());
    return { stopped: true, finish: LENGTH, drain: true };
  };

  /** Where `read` stopped in its batch: the rest may still carry the stopped backend's usage. */
  let readTo = 0;
  const read = (batch: BackendBatch): End | undefined => {
    for (readTo = 0; readTo < batch.length; ) {
      const event = batch[readTo++] as BackendEvent;
      trace?.onBackendEvent(event);
      switch (event.type) {
        case "stream-start":
          meter.accepted();
          if (event.turnId !== undefined) telemetry.backendTurnId = event.turnId;
          if (event.route !== undefined) telemetry.route = event.route;
          if (!ctx.started) {
            ctx.started = true;
            out.push(event);
          }
          break;
        case "text-delta":
        case "tool-call-start":
        case "tool-call-delta":
        case "tool-call-end": {
          meter.output(outputOf(event));
          const end = feed(event);
          if (end !== undefined) return end;
          break;
        }
        case "reasoning-delta":
          meter.output(event.delta);
          out.push(event);
          break;
        case "usage":
          usage = event.usage;
          meter.reported(event.usage);
          break;
        case "finish":
          finish = event.finish;
          break;
        case "error":
          if (event.route !== undefined) telemetry.route = event.route;
          return { stopped: false, error: event.error };
        case "web-search":
          // Counted for usage and limits; handed on as it came.
          if (event.status === "completed") telemetry.webSearches++;
          out.push(event);
          break;
        default:
          // A kind the turn does not read (one added to StreamEventFields) goes on as it came.
          out.push(event);
      }
    }
    return undefined;
  };

  const flush = (): End => {
    reader.flushTo(pipeline);
    const halt = pipeline.halt;
    if (halt?.kind === "failure") return { stopped: false, error: halt.error, callCut: true };
    if (halt?.kind === "violation") return { stopped: false, violation: halt.violation };
    if (halt?.kind === "stop" && halt.byGuard)
      return { finish: stopSequence(halt.sequence), usage, stopped: false };
    emit(guard.flush());
    return { finish, usage, stopped: false, violation: gate.endAttempt() };
  };

  const watchdog = createWatchdog(settings.idleTimeoutMs, ctx.deadlineAt, ctx.clock.now);
  let exhausted = false;
  try {
    for (;;) {
      const next = await watchdog.next(iterator);
      if (next.kind === "failed") return { rawText, stopped: false, error: next.error, tail: out };
      if (next.kind === "done") {
        exhausted = true;
        break;
      }
      const end = read(next.batch);
      if (end !== undefined) {
        const { drain, ...outcome } = end;
        if (drain !== true) return { ...outcome, rawText, tail: out };
        controller.abort();
        const tail = out;
        for (let i = readTo; i < next.batch.length; i++) {
          const rest = next.batch[i] as BackendEvent;
          if (rest.type === "usage") usage = rest.usage;
        }
        return { ...outcome, rawText, usage: await drainUsage(ctx, iterator, usage), tail };
      }
      if (out.length > 0) {
        yield out;
        out = [];
        pipeline.out = out;
      }
    }
    return { ...flush(), rawText, tail: out };
  } finally {
    watchdog.dispose();
    ctx.signal.removeEventListener("abort", abort);
    // A backend that ended by itself needs no stop (an abort allocates a DOMException per turn).
    if (!exhausted) {
      controller.abort();
      void iterator.return?.()?.catch(() => undefined);
    }
  }
}

/** After stopping the backend early, give it a moment (one deadline) to report real usage. */
const drainUsage = async (
  ctx: AttemptContext,
  iterator: AsyncIterator<BackendBatch>,
  known: Usage | undefined,
): Promise<Usage | undefined> => {
  let usage = known;
  const grace = createWatchdog(0, ctx.clock.now() + ctx.settings.stopGraceMs, ctx.clock.now);
  try {
    for (let next = await grace.next(iterator); next.kind === "batch"; next = await grace.next(iterator)) {
      for (const event of next.batch) if (event.type === "usage") usage = event.usage;
    }
    return usage;
  } finally {
    grace.dispose();
  }
};
