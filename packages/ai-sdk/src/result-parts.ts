import type { AssistantEvent } from "@proxy/core";
import type { Content, SdkFinishReason, SdkUsage, StreamPart } from "./sdk-types.js";

/**
 * The step's finish as the AI SDK reads it: "tool-calls" exactly when calls were returned;
 * otherwise the model's own, where a "tool-calls" with no call returned is a plain "stop".
 */
export const finishReasonOf = (model: SdkFinishReason, calls: number): SdkFinishReason => {
  if (calls > 0) return { unified: "tool-calls", raw: model.raw };
  return model.unified === "tool-calls" ? { unified: "stop", raw: model.raw } : model;
};

const add = (a: number | undefined, b: number | undefined): number | undefined =>
  a === undefined ? b : b === undefined ? a : a + b;

/** Usage over a step's attempts (a corrective re-ask costs tokens too). */
export const addUsage = (a: SdkUsage | undefined, b: SdkUsage): SdkUsage => {
  if (a === undefined) return b;
  return {
    inputTokens: {
      total: add(a.inputTokens.total, b.inputTokens.total),
      noCache: add(a.inputTokens.noCache, b.inputTokens.noCache),
      cacheRead: add(a.inputTokens.cacheRead, b.inputTokens.cacheRead),
      cacheWrite: add(a.inputTokens.cacheWrite, b.inputTokens.cacheWrite),
    },
    outputTokens: {
      total: add(a.outputTokens.total, b.outputTokens.total),
      text: add(a.outputTokens.text, b.outputTokens.text),
      reasoning: add(a.outputTokens.reasoning, b.outputTokens.reasoning),
    },
  };
};

/** Gate events as generate content: text merged into runs, each finished call one `tool-call`. */
export const appendContent = (content: Content[], events: ReadonlyArray<AssistantEvent>): number => {
  let calls = 0;
  for (const event of events) {
    if (event.type === "text-delta") {
      const last = content.at(-1);
      if (last?.type === "text") content[content.length - 1] = { ...last, text: last.text + event.delta };
      else content.push({ type: "text", text: event.delta });
    } else if (event.type === "tool-call-end") {
      calls++;
      content.push({
        type: "tool-call",
        toolCallId: event.callId,
        toolName: event.name,
        input: event.arguments,
      });
    }
  }
  return calls;
};

export interface PartSink {
  enqueue(part: StreamPart): void;
}

/**
 * Gate events as stream parts: text framed in `text-start`/`text-end` blocks of its own ids (a
 * call ends the open block), each call `tool-input-start`, its argument deltas, `tool-input-end`,
 * then the `tool-call` with the whole input; the call's id is the tool call id throughout.
 */
export class StreamPartWriter {
  calls = 0;
  private textId: string | undefined;
  private texts = 0;
  /** The open call's id (calls never interleave: one at a time). */
  private callId = "";

  write(events: ReadonlyArray<AssistantEvent>, sink: PartSink): void {
    for (const event of events) {
      switch (event.type) {
        case "text-delta": {
          let id = this.textId;
          if (id === undefined) {
            id = `txt-${this.texts++}`;
            this.textId = id;
            sink.enqueue({ type: "text-start", id });
          }
          sink.enqueue({ type: "text-delta", id, delta: event.delta });
          break;
        }
        case "tool-call-start":
          this.endText(sink);
          this.callId = event.callId;
          sink.enqueue({ type: "tool-input-start", id: event.callId, toolName: event.name });
          break;
        case "tool-call-delta":
          sink.enqueue({ type: "tool-input-delta", id: this.callId, delta: event.delta });
          break;
        case "tool-call-end":
          this.calls++;
          sink.enqueue({ type: "tool-input-end", id: event.callId });
          sink.enqueue({
            type: "tool-call",
            toolCallId: event.callId,
            toolName: event.name,
            input: event.arguments,
          });
          break;
        default:
          break;
      }
    }
  }

  endText(sink: PartSink): void {
    if (this.textId === undefined) return;
    sink.enqueue({ type: "text-end", id: this.textId });
    this.textId = undefined;
  }
}
