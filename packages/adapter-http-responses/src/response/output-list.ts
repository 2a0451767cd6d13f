import type { AssistantEvent, IdGenerator } from "@proxy/core";
import { appendArguments, type CallNaming, callItem, completeCall, openCall } from "./call-items.js";
import type { ResponsesSink } from "./event-sinks.js";
import type { Lifecycle } from "./lifecycle.js";
import type { OpenItem } from "./open-items.js";
import type { ItemStatus, OutputItem, WebSearchCallOutputItem } from "./output-items.js";
import { appendText, closeText, openMessage, openReasoning } from "./text-parts.js";

/**
 * A response's `output`: append-only with contiguous `output_index`, one open item at a time (opening
 * one closes the one before), each item's `.added` and `.done` events around its deltas.
 */
export interface OutputList {
  /** The finished items, in order. */
  readonly items: ReadonlyArray<OutputItem>;
  /** A text delta: into the open message, or a new one. */
  text(delta: string, sink: ResponsesSink): void;
  /** A reasoning delta: into the open reasoning item, or a new one. */
  reasoning(delta: string, sink: ResponsesSink): void;
  startCall(event: Extract<AssistantEvent, { type: "tool-call-start" }>, sink: ResponsesSink): void;
  /** An arguments delta of the open call (none open: dropped). */
  callDelta(delta: string, sink: ResponsesSink): void;
  /** Completes the open call with its final arguments; false when no call was open. */
  endCall(args: string, sink: ResponsesSink): boolean;
  /** A hosted web search: opened (`in_progress`, then `searching`) and completed with its action. */
  search(event: Extract<AssistantEvent, { type: "web-search" }>, sink: ResponsesSink): void;
  /** A complete item in one go (the compaction item): `output_item.added` + `output_item.done`. */
  add(item: OutputItem, sink: ResponsesSink): void;
  /** Closes the open item, if any: `completed`, or `incomplete` when the response did not finish. */
  closeOpen(status: ItemStatus, sink: ResponsesSink): void;
}

export const createOutputList = (ids: IdGenerator, naming: CallNaming, life: Lifecycle): OutputList => {
  const items: OutputItem[] = [];
  let open: OpenItem | undefined;
  /** A search ran: the messages' links are its citations. */
  let searched = false;

  const done = (item: OutputItem, index: number, sink: ResponsesSink): void => {
    items.push(item);
    life.emit(sink, "response.output_item.done", { output_index: index, item });
  };
  const closeOpen = (status: ItemStatus, sink: ResponsesSink): void => {
    const item = open;
    if (item === undefined) return;
    open = undefined;
    // A call still open here was cut short (the stream failed mid-call): reported as it stands.
    if (item.kind === "search") {
      const failed = status === "completed" ? "completed" : "failed";
      done({ type: "web_search_call", id: item.id, status: failed }, item.index, sink);
      return;
    }
    done(
      item.kind === "call" ? callItem(item, status) : closeText(item, status, life, sink, searched),
      item.index,
      sink,
    );
  };

  return {
    items,
    text(delta, sink) {
      if (open?.kind !== "message") {
        closeOpen("completed", sink);
        open = openMessage(ids.next("msg"), items.length, life, sink);
      }
      appendText(open, delta, life, sink);
    },
    reasoning(delta, sink) {
      if (open?.kind !== "reasoning") {
        closeOpen("completed", sink);
        open = openReasoning(ids.next("rs"), items.length, life, sink);
      }
      appendText(open, delta, life, sink);
    },
    startCall(event, sink) {
      closeOpen("completed", sink);
      open = openCall(event, items.length, naming, life, sink);
    },
    callDelta(delta, sink) {
      if (open?.kind === "call") appendArguments(open, delta, life, sink);
    },
    endCall(args, sink) {
      if (open?.kind !== "call") return false;
      const call = open;
      open = undefined;
      done(completeCall(call, args, life, sink), call.index, sink);
      return true;
    },
    search(event, sink) {
      searched = true;
      if (open?.kind !== "search" || open.id !== event.id) {
        closeOpen("completed", sink);
        const added: WebSearchCallOutputItem = {
          type: "web_search_call",
          id: event.id,
          status: "in_progress",
        };
        open = { kind: "search", id: event.id, index: items.length };
        life.emit(sink, "response.output_item.added", { output_index: open.index, item: added });
        life.emit(sink, "response.web_search_call.in_progress", {
          output_index: open.index,
          item_id: event.id,
        });
        life.emit(sink, "response.web_search_call.searching", {
          output_index: open.index,
          item_id: event.id,
        });
      }
      if (event.status === "in_progress") return;
      const search = open;
      open = undefined;
      const status = event.status === "failed" ? "failed" : "completed";
      if (status === "completed")
        life.emit(sink, "response.web_search_call.completed", {
          output_index: search.index,
          item_id: search.id,
        });
      const item: WebSearchCallOutputItem = {
        type: "web_search_call",
        id: search.id,
        status,
        ...(event.action !== undefined ? { action: event.action } : {}),
      };
      done(item, search.index, sink);
    },
    add(item, sink) {
      closeOpen("completed", sink);
      life.emit(sink, "response.output_item.added", { output_index: items.length, item });
      life.emit(sink, "response.output_item.done", { output_index: items.length, item });
      items.push(item);
    },
    closeOpen,
  };
};
