import {
  type AssistantEvent,
  AttemptPipeline,
  type CallGate,
  createCallGate,
  createOutputGuard,
  createSentinelParser,
  GatewayError,
  type OutputGuard,
  type SentinelParser,
  type Violation,
} from "@proxy/core";
import { createTelemetry } from "@proxy/core/gateway";
import type { StepPlan } from "./plan.js";

/**
 * Text kept delta by delta without a rope of tiny strings: pieces are joined into flat blocks every
 * 256 deltas (a rope costs tens of bytes per delta; a joined block about one byte per character).
 */
class TextLog {
  private readonly blocks: string[] = [];
  private pieces: string[] = [];

  add(piece: string): void {
    this.pieces.push(piece);
    if (this.pieces.length === 256) {
      this.blocks.push(this.pieces.join(""));
      this.pieces = [];
    }
  }

  text(): string {
    return this.blocks.join("") + this.pieces.join("");
  }
}

/** How an attempt ended: its events are in `events()`; a violation may be corrected. */
export type AttemptEnd =
  | { readonly kind: "done" }
  | { readonly kind: "violation"; readonly violation: Violation }
  | { readonly kind: "failure"; readonly error: GatewayError };

/**
 * One step's model text through core's parser and call gate, attempt by attempt: the same pieces
 * runTurn runs (sentinel parser → call gate → output guard, delivered into an AttemptPipeline), so
 * tool_choice, the parallel cap, dedup, stop-after-tools and the strict rules are core's own. The
 * events of each push collect in `events()` until the caller takes them.
 */
export class ToolStep {
  readonly gate: CallGate;
  private readonly plan: StepPlan;
  /** Per attempt, as in runTurn: a flushed guard has ended its output. */
  private guard: OutputGuard;
  private parser: SentinelParser | undefined;
  private pipeline: AttemptPipeline;
  /** This attempt's model text, kept for a corrective re-ask (only tool rules can call for one). */
  private text = new TextLog();
  private readonly keepText: boolean;

  constructor(plan: StepPlan) {
    this.plan = plan;
    this.gate = createCallGate({
      policy: plan.policy,
      settings: plan.settings,
      ids: plan.ids,
      telemetry: createTelemetry(plan.policy.tools.map((t) => t.name)),
    });
    this.guard = createOutputGuard({});
    this.pipeline = new AttemptPipeline(this.gate, this.guard, undefined);
    this.keepText = plan.callable.size > 0 && plan.settings.correctiveRetries > 0;
  }

  /** Starts an attempt: a new parser; the gate forgets half-seen blocks (and replays sent text). */
  begin(): void {
    this.parser = createSentinelParser({
      tools: this.plan.callable,
      validator: this.plan.validator,
      maxBlockBytes: this.plan.settings.maxBlockBytes,
      formats: this.plan.formats,
    });
    this.gate.beginAttempt();
    this.guard = createOutputGuard({});
    this.pipeline = new AttemptPipeline(this.gate, this.guard, undefined);
    this.text = new TextLog();
  }

  /** The events produced since the last `clear()`. */
  events(): ReadonlyArray<AssistantEvent> {
    return this.pipeline.out;
  }

  clear(): void {
    this.pipeline.out.length = 0;
  }

  /** The attempt stopped taking text (stop-after-tools, a violation or a failure). */
  halted(): boolean {
    return this.pipeline.halt !== undefined;
  }

  push(delta: string): void {
    if (this.pipeline.halt !== undefined || this.parser === undefined) return;
    if (this.keepText) this.text.add(delta);
    this.parser.pushTo(delta, this.pipeline);
  }

  /** Ends the attempt: the parser's held text and blocks, then the tool_choice check. */
  end(): AttemptEnd {
    const { pipeline } = this;
    if (pipeline.halt === undefined) this.parser?.flushTo(pipeline);
    const halt = pipeline.halt;
    if (halt?.kind === "failure") return { kind: "failure", error: halt.error };
    if (halt?.kind === "violation") return { kind: "violation", violation: halt.violation };
    for (const event of this.guard.flush()) pipeline.out.push(event);
    const violation = this.gate.endAttempt();
    return violation === undefined ? { kind: "done" } : { kind: "violation", violation };
  }

  /** This attempt's model text, for the corrective re-ask (empty when no rule can call for one). */
  rawText(): string {
    return this.text.text();
  }
}

/** The error a step ends with when its corrective re-asks are used up. */
export const rulesBroken = (violation: Violation, retries: number): GatewayError =>
  new GatewayError(
    violation.kind,
    `The model's reply broke the tool rules after ${retries} corrective turn(s): ${violation.message}.`,
  );
