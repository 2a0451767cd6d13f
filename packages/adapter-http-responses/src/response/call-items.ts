import type { AssistantEvent } from "@proxy/core";
import type { ResponsesSink } from "./event-sinks.js";
import type { Lifecycle } from "./lifecycle.js";
import type { OpenCall } from "./open-items.js";
import { scope } from "./open-items.js";
import { type ItemStatus, type OutputItem, toCallItem } from "./output-items.js";

/** How the request named its tools: what a call item carries beyond the call itself. */
export interface CallNaming {
  /** Tool name → namespace (codex namespaced tools): set on the function_call item. */
  readonly namespaces?: ReadonlyMap<string, string> | undefined;
  /** Names of the request's custom (freeform) tools: their calls are `custom_tool_call` items. */
  readonly customTools?: ReadonlySet<string> | undefined;
}

/** The call as an item: `function_call`, or `custom_tool_call` for a custom tool. */
export const callItem = (item: OpenCall, status: ItemStatus): OutputItem =>
  toCallItem({
    id: item.id,
    callId: item.callId,
    name: item.name,
    arguments: item.args,
    status,
    namespace: item.namespace,
    custom: item.custom,
  });

/** Opens a call item (`response.output_item.added`, in progress). */
export const openCall = (
  event: Extract<AssistantEvent, { type: "tool-call-start" }>,
  index: number,
  naming: CallNaming,
  life: Lifecycle,
  sink: ResponsesSink,
): OpenCall => {
  const item: OpenCall = {
    kind: "call",
    id: event.id,
    index,
    callId: event.callId,
    name: event.name,
    namespace: naming.namespaces?.get(event.name),
    custom: naming.customTools?.has(event.name) === true,
    args: "",
  };
  life.emit(sink, "response.output_item.added", { output_index: index, item: callItem(item, "in_progress") });
  return item;
};

/** One delta of the arguments. A custom call's deltas are JSON of `{"input": …}`: its raw input goes out at the end. */
export const appendArguments = (
  item: OpenCall,
  delta: string,
  life: Lifecycle,
  sink: ResponsesSink,
): void => {
  item.args += delta;
  if (!item.custom) life.emit(sink, "response.function_call_arguments.delta", { ...scope(item), delta });
};

/** The call is complete: its arguments' (or custom input's) `.done` events; returns the finished item. */
export const completeCall = (
  item: OpenCall,
  args: string,
  life: Lifecycle,
  sink: ResponsesSink,
): OutputItem => {
  item.args = args;
  const done = callItem(item, "completed");
  if (done.type === "custom_tool_call") {
    life.emit(sink, "response.custom_tool_call_input.delta", { ...scope(item), delta: done.input });
    life.emit(sink, "response.custom_tool_call_input.done", { ...scope(item), input: done.input });
  } else {
    // Only documented fields here; the call_id travels on the item.
    life.emit(sink, "response.function_call_arguments.done", {
      ...scope(item),
      name: item.name,
      arguments: item.args,
    });
  }
  return done;
};
