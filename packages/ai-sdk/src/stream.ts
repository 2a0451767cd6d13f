import { type BackendRequest, correctiveRequest, type GatewayError } from "@proxy/core";
import type { StepPlan } from "./plan.js";
import { addUsage, finishReasonOf, type PartSink, StreamPartWriter } from "./result-parts.js";
import type { LanguageModel, SdkFinishReason, SdkUsage, StreamPart, StreamResult } from "./sdk-types.js";
import { rulesBroken, ToolStep } from "./tool-step.js";

type Finish = Extract<StreamPart, { type: "finish" }>;
type Controller = TransformStreamDefaultController<StreamPart>;

const UNKNOWN_USAGE: SdkUsage = {
  inputTokens: { total: undefined, noCache: undefined, cacheRead: undefined, cacheWrite: undefined },
  outputTokens: { total: undefined, text: undefined, reasoning: undefined },
};
const NO_FINISH: SdkFinishReason = { unified: "other", raw: undefined };

/**
 * `doStream` under the plan: the model's stream through one TransformStream whose `transform` is
 * synchronous. Text deltas go through core's parser and gate as they arrive (one `pushTo` each, no
 * promise or closure per delta); everything else passes through. A reply that breaks the tool rules
 * is re-asked from `flush` on a new model stream, the one gate carrying on (text the caller already
 * has is not sent twice).
 */
export const streamWithTools = async (model: LanguageModel, plan: StepPlan): Promise<StreamResult> => {
  const first = await model.doStream(plan.callOptions(plan.request));
  return {
    ...first,
    stream: first.stream.pipeThrough(
      new TransformStream<StreamPart, StreamPart>(new ToolStream(model, plan)),
    ),
  };
};

/** The transformer of one stream (a class: its methods are not closures made per stream part). */
class ToolStream implements PartSink {
  private readonly model: LanguageModel;
  private readonly plan: StepPlan;
  private readonly step: ToolStep;
  private readonly writer = new StreamPartWriter();
  private request: BackendRequest;
  private attempt = 0;
  private started = false;
  private finish: Finish | undefined;
  private usage: SdkUsage | undefined;
  private controller: Controller | undefined;
  /** A corrective attempt's model stream, while `flush` reads it. */
  private reader: ReadableStreamDefaultReader<StreamPart> | undefined;

  constructor(model: LanguageModel, plan: StepPlan) {
    this.model = model;
    this.plan = plan;
    this.request = plan.request;
    this.step = new ToolStep(plan);
    this.step.begin();
  }

  start(controller: Controller): void {
    this.controller = controller;
  }

  transform(part: StreamPart): void {
    this.read(part);
  }

  /** The model's stream ended: finish, or re-ask and read the corrective attempts to their end. */
  async flush(): Promise<void> {
    while (this.endAttempt()) {
      const next = await this.model.doStream(this.plan.callOptions(this.request));
      const reader = next.stream.getReader();
      this.reader = reader;
      for (let r = await reader.read(); !r.done; r = await reader.read()) this.read(r.value);
    }
  }

  cancel(reason: unknown): Promise<void> | undefined {
    return this.reader?.cancel(reason);
  }

  enqueue(part: StreamPart): void {
    this.controller?.enqueue(part);
  }

  private read(part: StreamPart): void {
    switch (part.type) {
      case "text-start":
      case "text-end":
        return; // text is reframed around the calls
      case "text-delta": {
        const { step } = this;
        step.push(part.delta);
        const events = step.events();
        if (events.length > 0) {
          this.writer.write(events, this);
          step.clear();
        }
        return;
      }
      case "stream-start":
        if (this.started) return;
        this.started = true;
        this.enqueue(
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
        this.enqueue(part);
    }
  }

  /** Ends the attempt; true when a corrective attempt is to be read next (`request` is set for it). */
  private endAttempt(): boolean {
    const { step, writer } = this;
    const end = step.end();
    writer.write(step.events(), this);
    step.clear();
    if (end.kind === "violation" && this.attempt < this.plan.settings.correctiveRetries) {
      this.attempt++;
      step.gate.discardHeld();
      this.request = correctiveRequest(this.request, step.rawText(), end.violation.message);
      step.begin();
      return true;
    }
    writer.endText(this);
    if (end.kind !== "done") {
      this.fail(end.kind === "failure" ? end.error : rulesBroken(end.violation, this.attempt));
      return false;
    }
    this.enqueue({
      ...this.finish,
      type: "finish",
      usage: this.usage ?? UNKNOWN_USAGE,
      finishReason: finishReasonOf(this.finish?.finishReason ?? NO_FINISH, writer.calls),
    });
    return false;
  }

  private fail(error: GatewayError): void {
    this.enqueue({ type: "error", error });
    this.enqueue({
      type: "finish",
      usage: this.usage ?? UNKNOWN_USAGE,
      finishReason: { unified: "error", raw: this.finish?.finishReason.raw },
    });
  }
}
