import type { GatewayError } from "../errors/gateway-error.js";
import type { AssistantEvent, ParserEvent } from "../events/stream-event.js";
import type { OutputGuard } from "../output/output-guard.js";
import type { ParserSink } from "../parser/parser-types.js";
import type { CallGate } from "./call-gate.js";
import type { GateResult, Violation } from "./gate-result.js";
import type { TurnTrace } from "./turn-trace.js";

/** Why the pipeline stopped taking events: the attempt decides what each means where it is. */
export type Halt =
  | { readonly kind: "failure"; readonly error: GatewayError }
  | { readonly kind: "violation"; readonly violation: Violation }
  /** Stop-after-tools (`sequence` undefined, `byGuard` false) or a stop sequence (`byGuard`). */
  | { readonly kind: "stop"; readonly byGuard: boolean; readonly sequence: string | undefined };

/**
 * The reader's events on their way into the attempt's batch: call gate, then output guard, then
 * `out`. The reader delivers into it (a `ParserSink`), so a plain text delta costs one gate check,
 * one guard check and the one `text-delta` the surface needs: no array or result object per delta
 * (a streaming call's delta likewise).
 * Once `halt` is set the attempt ends, and whatever the reader still delivers is dropped. A class:
 * one per attempt, its methods are not closures.
 */
export class AttemptPipeline implements ParserSink {
  /** The batch being built (the attempt swaps in a new one after each yield). */
  out: AssistantEvent[] = [];
  halt: Halt | undefined;
  private readonly gate: CallGate;
  private readonly guard: OutputGuard;
  private readonly trace: TurnTrace | undefined;

  constructor(gate: CallGate, guard: OutputGuard, trace: TurnTrace | undefined) {
    this.gate = gate;
    this.guard = guard;
    this.trace = trace;
  }

  text(text: string): void {
    if (this.halt !== undefined) return;
    const passed = this.gate.acceptText(text);
    if (typeof passed !== "string") this.settle(passed);
    else if (passed !== "" && this.guard.pushText(passed, this.out))
      this.halt = { kind: "stop", byGuard: true, sequence: this.guard.sequence };
  }

  event(event: Exclude<ParserEvent, { type: "text-delta" }>): void {
    if (this.halt !== undefined) return;
    this.trace?.onParserEvent(event);
    if (event.type !== "tool-call-delta") {
      this.settle(this.gate.accept(event));
      return;
    }
    // A streaming call's delta, the most frequent call event: no result object either.
    const index = this.gate.acceptDelta(event.delta);
    if (typeof index !== "number") this.settle(index);
    else if (this.guard.pushEvent({ type: "tool-call-delta", index, delta: event.delta }, this.out))
      this.halt = { kind: "stop", byGuard: true, sequence: this.guard.sequence };
  }

  private settle(result: GateResult): void {
    const guarded = this.guard.accept(result.events);
    const out = this.out;
    for (const event of guarded.events) out.push(event);
    if (result.failure !== undefined) this.halt = { kind: "failure", error: result.failure };
    else if (result.violation !== undefined) this.halt = { kind: "violation", violation: result.violation };
    else if (guarded.stopped) this.halt = { kind: "stop", byGuard: true, sequence: guarded.sequence };
    else if (result.stop === true) this.halt = { kind: "stop", byGuard: false, sequence: undefined };
  }
}
