import { type BackendRequest, correctiveRequest, type GatewayError } from "@proxy/core";
import type { StepPlan } from "./plan.js";
import { addUsage, finishReasonOf, type PartSink, StreamPartWriter } from "./result-parts.js";
import type { LanguageModel, SdkFinishReason, SdkUsage, StreamPart, StreamResult } from "./sdk-types.js";
import { rulesBroken, ToolStep } from "./tool-step.js";

type Finish = Extract<StreamPart, { type: "finish" }>;

const UNKNOWN_USAGE: SdkUsage = {
  inputTokens: { total: undefined, noCache: undefined, cacheRead: undefined, cacheWrite: undefined },
  outputTokens: { total: undefined, text: undefined, reasoning: undefined },
};
const NO_FINISH: SdkFinishReason = { unified: "other", raw: undefined };

/**
 * `doStream` under the plan: a pull stream over the model's parts. Text deltas go through core's
 * parser and gate as they arrive (one synchronous push each); everything else passes through. A
 * reply that breaks the tool rules is re-asked on a new model stream, the one gate carrying on (text
 * the caller already has is not sent twice). One object per stream; nothing is allocated per delta
 * but the parts themselves.
 */
export const streamWithTools = async (model: LanguageModel, plan: StepPlan): Promise<StreamResult> => {
  const first = await model.doStream(plan.callOptions(plan.request));
  const run = new ToolStream(model, plan, first.stream.getReader());
  return {
    ...first,
    stream: new ReadableStream<StreamPart>({
      pull: (controller) => run.pull(controller),
      cancel: (reason) => run.cancel(reason),
    }),
  };
};

class ToolStream implements PartSink {
  private readonly model: LanguageModel;
  private readonly plan: StepPlan;
  private reader: ReadableStreamDefaultReader<StreamPart>;
  private readonly step: ToolStep;
  private readonly writer = new StreamPartWriter();
  private request: BackendRequest;
  private attempt = 0;
  private started = false;
  private finish: Finish | undefined;
  private usage: SdkUsage | undefined;
  private controller: ReadableStreamDefaultController<StreamPart> | undefined;
  private enqueued = 0;
  private closed = false;

  constructor(model: LanguageModel, plan: StepPlan, reader: ReadableStreamDefaultReader<StreamPart>) {
    this.model = model;
    this.plan = plan;
    this.reader = reader;
    this.request = plan.request;
    this.step = new ToolStep(plan);
    this.step.begin();
  }

  /**
   * Reads model parts until one part went out (or the stream ended): a pull that enqueues nothing
   * is never pulled again, since the read that asked for it is still waiting.
   */
  async pull(controller: ReadableStreamDefaultController<StreamPart>): Promise<void> {
    this.controller = controller;
    const before = this.enqueued;
    while (this.enqueued === before && !this.closed) {
      const next = await this.reader.read();
      if (next.done) await this.endAttempt(this);
      else this.read(next.value, this);
    }
  }

  enqueue(part: StreamPart): void {
    this.enqueued++;
    this.controller?.enqueue(part);
  }

  cancel(reason: unknown): Promise<void> {
    return this.reader.cancel(reason);
  }

  private read(part: StreamPart, sink: PartSink): void {
    switch (part.type) {
      case "text-start":
      case "text-end":
        return; // text is reframed around the calls
      case "text-delta": {
        const { step } = this;
        step.push(part.delta);
        const events = step.events();
        if (events.length > 0) {
          this.writer.write(events, sink);
          step.clear();
        }
        return;
      }
      case "stream-start":
        if (this.started) return;
        this.started = true;
        sink.enqueue(
          this.plan.warnings.length === 0
            ? part
            : { ...part, warnings: [...this.plan.warnings, ...part.warnings] },
        );
        return;
      case "finish":
        this.finish = part;
        this.usage = addUsage(this.usage, part.usage);
        return;
      default:
        sink.enqueue(part);
    }
  }

  private async endAttempt(sink: PartSink): Promise<void> {
    const { step, writer } = this;
    const end = step.end();
    writer.write(step.events(), sink);
    step.clear();
    if (end.kind === "violation" && this.attempt < this.plan.settings.correctiveRetries) {
      this.attempt++;
      step.gate.discardHeld();
      this.request = correctiveRequest(this.request, step.rawText(), end.violation.message);
      step.begin();
      const next = await this.model.doStream(this.plan.callOptions(this.request));
      this.reader = next.stream.getReader();
      return;
    }
    writer.endText(sink);
    if (end.kind !== "done") {
      this.fail(end.kind === "failure" ? end.error : rulesBroken(end.violation, this.attempt), sink);
      return;
    }
    const finish = this.finish;
    sink.enqueue({
      ...finish,
      type: "finish",
      usage: this.usage ?? UNKNOWN_USAGE,
      finishReason: finishReasonOf(finish?.finishReason ?? NO_FINISH, writer.calls),
    });
    this.close();
  }

  private fail(error: GatewayError, sink: PartSink): void {
    sink.enqueue({ type: "error", error });
    sink.enqueue({
      type: "finish",
      usage: this.usage ?? UNKNOWN_USAGE,
      finishReason: { unified: "error", raw: this.finish?.finishReason.raw },
    });
    this.close();
  }

  private close(): void {
    this.closed = true;
    this.controller?.close();
  }
}
