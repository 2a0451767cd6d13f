import type {
  AssistantEvent,
  Clock,
  Finish,
  GatewayError,
  IdGenerator,
  OutputMode,
  Usage,
} from "@proxy/core";
import { unixSeconds } from "@proxy/core";
import { toolCallEcho } from "@proxy/http-surface";
import {
  type ItemStatus,
  type OutputItem,
  outputText,
  summaryText,
  toCallItem,
  toMessageItem,
  toReasoningItem,
} from "./output-items.js";
import {
  buildResponse,
  type IncompleteDetails,
  type ResponseHeader,
  type ResponseObject,
  type ResponseState,
} from "./response-object.js";
import { type ResponsesEvent, TextDeltaEvent } from "./text-delta-event.js";

export type { ResponsesEvent };

export interface EncoderOptions {
  readonly header: ResponseHeader;
  readonly ids: IdGenerator;
  readonly clock: Clock;
  readonly outputMode: OutputMode;
  /** Tool name → namespace (codex namespaced tools): set on the function_call item. */
  readonly namespaces?: ReadonlyMap<string, string> | undefined;
  /** Names of the request's custom (freeform) tools: their calls are `custom_tool_call` items. */
  readonly customTools?: ReadonlySet<string> | undefined;
}

type OpenItem =
  | { readonly kind: "message"; readonly id: string; readonly index: number; text: string }
  | { readonly kind: "reasoning"; readonly id: string; readonly index: number; text: string }
  | {
      readonly kind: "call";
      readonly id: string;
      readonly index: number;
      readonly callId: string;
      readonly name: string;
      readonly custom: boolean;
      args: string;
    };

const INCOMPLETE: Partial<Record<Finish["reason"], IncompleteDetails["reason"]>> = {
  length: "max_output_tokens",
  content_filter: "content_filter",
};

/**
 * The one encoder from the canonical assistant stream to Responses events, shared by streaming
 * (events written as SSE) and non-streaming (only the final `response()` is used). It owns the
 * invariants strict clients check: append-only contiguous `output_index`, one open item at a time,
 * `content_index`/`summary_index` 0, and a single monotonically increasing `sequence_number`.
 */
export const createResponsesEncoder = (options: EncoderOptions) => {
  const { header, ids, clock } = options;
  let sequence = 0;
  let pending: ResponsesEvent[] = [];
  const output: OutputItem[] = [];
  let open: OpenItem | undefined;
  let usage: Usage | undefined;
  let state: ResponseState = { status: "in_progress", output: [] };

  const emit = (type: string, fields: Record<string, unknown>): void => {
    pending.push({ type, ...fields, sequence_number: sequence++ });
  };
  const drain = (): ResponsesEvent[] => {
    const events = pending;
    pending = [];
    return events;
  };
  // A background response waits `queued` until its turn really starts (see `queue`).
  let queued = false;
  const snapshot = (): ResponseObject => {
    const response = buildResponse(header, state);
    return queued && state.status === "in_progress" ? { ...response, status: "queued" } : response;
  };
  const scope = (item: OpenItem) => ({ item_id: item.id, output_index: item.index });

  const closeOpen = (status: ItemStatus): void => {
    const item = open;
    if (item === undefined) return;
    open = undefined;
    let done: OutputItem;
    switch (item.kind) {
      case "message":
        emit("response.output_text.done", {
          ...scope(item),
          content_index: 0,
          text: item.text,
          logprobs: [],
        });
        emit("response.content_part.done", { ...scope(item), content_index: 0, part: outputText(item.text) });
        done = toMessageItem(item.id, item.text, status);
        break;
      case "reasoning":
        emit("response.reasoning_summary_text.done", { ...scope(item), summary_index: 0, text: item.text });
        emit("response.reasoning_summary_part.done", {
          ...scope(item),
          summary_index: 0,
          part: summaryText(item.text),
        });
        done = toReasoningItem(item.id, item.text);
        break;
      case "call":
        // Only reached when the stream failed mid-call: the partial call is reported incomplete.
        done = callItem(item, status);
        break;
    }
    output.push(done);
    emit("response.output_item.done", { output_index: item.index, item: done });
  };

  const callItem = (item: Extract<OpenItem, { kind: "call" }>, status: ItemStatus) =>
    toCallItem({
      id: item.id,
      callId: item.callId,
      name: item.name,
      arguments: item.args,
      status,
      namespace: options.namespaces?.get(item.name),
      custom: item.custom,
    });

  const appendText = (delta: string): void => {
    if (open?.kind !== "message") {
      closeOpen("completed");
      const item: OpenItem = { kind: "message", id: ids.next("msg"), index: output.length, text: "" };
      open = item;
      emit("response.output_item.added", {
        output_index: item.index,
        item: toMessageItem(item.id, undefined, "in_progress"),
      });
      emit("response.content_part.added", { ...scope(item), content_index: 0, part: outputText("") });
    }
    open.text += delta;
    pending.push(new TextDeltaEvent(open.id, open.index, delta, sequence++));
  };

  const appendReasoning = (delta: string): void => {
    if (open?.kind !== "reasoning") {
      closeOpen("completed");
      const item: OpenItem = { kind: "reasoning", id: ids.next("rs"), index: output.length, text: "" };
      open = item;
      emit("response.output_item.added", {
        output_index: item.index,
        item: toReasoningItem(item.id, undefined),
      });
      emit("response.reasoning_summary_part.added", {
        ...scope(item),
        summary_index: 0,
        part: summaryText(""),
      });
    }
    open.text += delta;
    emit("response.reasoning_summary_text.delta", { ...scope(open), summary_index: 0, delta });
  };

  const finishWith = (terminal: ResponseState, type: string): void => {
    state = terminal;
    emit(type, { response: snapshot() });
  };

  /** finish → terminal event: length/content_filter are `incomplete`, an `error` finish is `failed`. */
  const finish = (reason: Finish): void => {
    const incomplete = INCOMPLETE[reason.reason];
    closeOpen(incomplete === undefined ? "completed" : "incomplete");
    const base = { output: [...output], usage };
    if (incomplete !== undefined) {
      finishWith(
        { ...base, status: "incomplete", incompleteDetails: { reason: incomplete } },
        "response.incomplete",
      );
    } else if (reason.reason === "error") {
      const message = `The backend turn failed (${reason.raw ?? "unknown"}).`;
      finishWith({ ...base, status: "failed", error: { code: "server_error", message } }, "response.failed");
    } else {
      finishWith({ ...base, status: "completed", completedAt: unixSeconds(clock) }, "response.completed");
    }
  };

  const fail = (error: GatewayError): void => {
    if (state.status !== "in_progress") return;
    closeOpen("incomplete");
    const failure = { code: error.code, message: error.message };
    finishWith({ status: "failed", output: [...output], usage, error: failure }, "response.failed");
  };

  return {
    /** Background mode: `response.created` and `response.queued` (status queued), before `start`. */
    queue(): ResponsesEvent[] {
      queued = true;
      emit("response.created", { response: snapshot() });
      emit("response.queued", { response: snapshot() });
      return drain();
    },

    /** `response.created` (in_progress, output []) then `response.in_progress` (only that after `queue`). */
    start(): ResponsesEvent[] {
      if (!queued) emit("response.created", { response: snapshot() });
      queued = false;
      emit("response.in_progress", { response: snapshot() });
      return drain();
    },

    push(event: AssistantEvent): ResponsesEvent[] {
      if (state.status !== "in_progress") return [];
      switch (event.type) {
        case "text-delta":
          appendText(event.delta);
          break;
        case "reasoning-delta":
          appendReasoning(event.delta);
          break;
        case "tool-call-start": {
          closeOpen("completed");
          const item: OpenItem = {
            kind: "call",
            id: event.id,
            index: output.length,
            callId: event.callId,
            name: event.name,
            custom: options.customTools?.has(event.name) === true,
            args: "",
          };
          open = item;
          emit("response.output_item.added", {
            output_index: item.index,
            item: callItem(item, "in_progress"),
          });
          break;
        }
        case "tool-call-delta":
          if (open?.kind === "call") {
            open.args += event.delta;
            // A custom call's deltas are JSON of `{"input": …}`; its raw input goes out at the end.
            if (!open.custom)
              emit("response.function_call_arguments.delta", { ...scope(open), delta: event.delta });
          }
          break;
        case "tool-call-end":
          if (open?.kind === "call") {
            const item = open;
            open = undefined;
            item.args = event.arguments;
            const done = callItem(item, "completed");
            if (done.type === "custom_tool_call") {
              emit("response.custom_tool_call_input.delta", { ...scope(item), delta: done.input });
              emit("response.custom_tool_call_input.done", { ...scope(item), input: done.input });
            } else {
              // Only documented fields here; the call_id travels on the item.
              emit("response.function_call_arguments.done", {
                ...scope(item),
                name: item.name,
                arguments: item.args,
              });
            }
            output.push(done);
            emit("response.output_item.done", { output_index: item.index, item: done });
            const echo = toolCallEcho(options.outputMode, event.name, event.arguments);
            if (echo !== undefined) appendText(echo);
          }
          break;
        case "usage":
          usage = event.usage;
          break;
        case "finish":
          finish(event.finish);
          break;
        case "error":
          fail(event.error);
          break;
        case "stream-start":
          break;
      }
      return drain();
    },

    /** A failure after the stream started: close what is open, then `response.failed`. */
    fail(error: GatewayError): ResponsesEvent[] {
      fail(error);
      return drain();
    },

    /** A complete item in one go (the compaction item): `output_item.added` + `output_item.done`. */
    addItem(item: OutputItem): ResponsesEvent[] {
      closeOpen("completed");
      emit("response.output_item.added", { output_index: output.length, item });
      emit("response.output_item.done", { output_index: output.length, item });
      output.push(item);
      return drain();
    },

    /** Ends the response as completed with what has been added (compaction path). */
    complete(finalUsage: Usage | undefined): ResponsesEvent[] {
      usage = finalUsage ?? usage;
      finish({ reason: "stop", raw: "compaction" });
      return drain();
    },

    response: snapshot,
    get finished(): boolean {
      return state.status !== "in_progress";
    },
  };
};

export type ResponsesEncoder = ReturnType<typeof createResponsesEncoder>;
