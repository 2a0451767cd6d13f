import type { AssistantEvent, Finish, GatewayError, IdGenerator, Usage } from "@proxy/core";
import type { Clock, OutputMode } from "@proxy/core/gateway";
import { unixSeconds } from "@proxy/core/gateway";
import type { StreamEncoder, TerminalEvent } from "@proxy/http-surface";
import { toolCallEcho } from "@proxy/http-surface/openai-wire";
import type { CallNaming } from "./call-items.js";
import type { ResponsesSink } from "./event-sinks.js";
import { createLifecycle } from "./lifecycle.js";
import type { OutputItem } from "./output-items.js";
import { createOutputList } from "./output-list.js";
import { failedWith } from "./response-error.js";
import type { IncompleteDetails, ResponseHeader, ResponseObject } from "./response-object.js";

export type { ResponsesEvent } from "./text-delta-event.js";

export interface EncoderOptions extends CallNaming {
  readonly header: ResponseHeader;
  readonly ids: IdGenerator;
  readonly clock: Clock;
  readonly outputMode: OutputMode;
}

/** A turn's Responses encoder: the kit driver's `StreamEncoder`, plus what stored and background turns use. */
export interface ResponsesEncoder extends StreamEncoder<ResponsesSink> {
  start(sink: ResponsesSink): void;
  /** Background mode: `response.created` and `response.queued` (status queued), before `start`. */
  queue(sink: ResponsesSink): void;
  /** A failure: close what is open (incomplete), then `response.failed` (unless already ended). */
  fail(error: GatewayError, sink: ResponsesSink): void;
  /** A complete item in one go (the compaction item). */
  addItem(item: OutputItem, sink: ResponsesSink): void;
  /** Ends the response as completed with what has been added (compaction). */
  complete(usage: Usage | undefined, sink: ResponsesSink): void;
  /** The Response object as it stands (final once `finished`). */
  response(): ResponseObject;
  /** The items finished so far. */
  output(): ReadonlyArray<OutputItem>;
  /** The error the response failed with (an `error` event or `fail`), if any. */
  failure(): GatewayError | undefined;
  readonly finished: boolean;
}

const INCOMPLETE: Partial<Record<Finish["reason"], IncompleteDetails["reason"]>> = {
  length: "max_output_tokens",
  content_filter: "content_filter",
};

/**
 * The one encoder from the canonical assistant stream to Responses events, whatever reads them (a
 * client's SSE stream, the JSON answer's final `response()`, a stored or background turn's events).
 * It owns the invariants strict clients check (see `Lifecycle` and `OutputList`): append-only
 * contiguous `output_index`, one open item at a time, `content_index`/`summary_index` 0, and a single
 * monotonically increasing `sequence_number`.
 */
export const createResponsesEncoder = (options: EncoderOptions): ResponsesEncoder => {
  const life = createLifecycle(options.header);
  const output = createOutputList(options.ids, options, life);
  let usage: Usage | undefined;
  let failure: GatewayError | undefined;

  /** finish → terminal event: length/content_filter are `incomplete`, an `error` finish is `failed`. */
  const finish = (reason: Finish, sink: ResponsesSink): void => {
    const incomplete = INCOMPLETE[reason.reason];
    output.closeOpen(incomplete === undefined ? "completed" : "incomplete", sink);
    const base = { output: [...output.items], usage };
    if (incomplete !== undefined) {
      const state = { ...base, status: "incomplete", incompleteDetails: { reason: incomplete } } as const;
      life.settle(sink, state, "response.incomplete");
    } else if (reason.reason === "error") {
      const message = `The backend turn failed (${reason.raw ?? "unknown"}).`;
      life.settle(
        sink,
        { ...base, status: "failed", error: { code: "server_error", message } },
        "response.failed",
      );
    } else {
      const state = { ...base, status: "completed", completedAt: unixSeconds(options.clock) } as const;
      life.settle(sink, state, "response.completed");
    }
  };

  const fail = (error: GatewayError, sink: ResponsesSink): void => {
    failure ??= error;
    if (life.finished) return;
    output.closeOpen("incomplete", sink);
    const state = {
      status: "failed",
      output: [...output.items],
      usage,
      error: failedWith(error),
    } as const;
    life.settle(sink, state, "response.failed");
  };

  return {
    queue: life.queue,
    start: life.start,
    push(event: AssistantEvent, sink: ResponsesSink): void {
      if (life.finished) return;
      switch (event.type) {
        case "text-delta":
          output.text(event.delta, sink);
          break;
        case "reasoning-delta":
          output.reasoning(event.delta, sink);
          break;
        case "web-search":
          output.search(event, sink);
          break;
        case "tool-call-start":
          output.startCall(event, sink);
          break;
        case "tool-call-delta":
          output.callDelta(event.delta, sink);
          break;
        case "tool-call-end":
          if (output.endCall(event.arguments, sink)) {
            // Clients that read calls from the answer's text get the call echoed there too.
            const echo = toolCallEcho(options.outputMode, event.name, event.arguments);
            if (echo !== undefined) output.text(echo, sink);
          }
          break;
        case "usage":
          usage = event.usage;
          break;
        case "finish":
          finish(event.finish, sink);
          break;
        case "error":
          fail(event.error, sink);
          break;
        case "stream-start":
          break;
      }
    },
    end(terminal: TerminalEvent, sink: ResponsesSink): void {
      if (terminal.type === "error") fail(terminal.error, sink);
      else if (!life.finished) finish(terminal.finish, sink);
    },
    fail,
    addItem: output.add,
    complete(finalUsage, sink) {
      usage = finalUsage ?? usage;
      finish({ reason: "stop", raw: "compaction" }, sink);
    },
    response: life.snapshot,
    output: () => output.items,
    failure: () => failure,
    get finished() {
      return life.finished;
    },
  };
};
