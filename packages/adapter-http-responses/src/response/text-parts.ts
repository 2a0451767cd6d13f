import { citedLinks } from "@proxy/core";
import type { ResponsesSink } from "./event-sinks.js";
import type { Lifecycle } from "./lifecycle.js";
import type { OpenText } from "./open-items.js";
import { scope } from "./open-items.js";
import {
  type ItemStatus,
  type OutputItem,
  outputText,
  summaryText,
  toMessageItem,
  toReasoningItem,
  urlCitation,
} from "./output-items.js";

/**
 * The text parts of an answer: a message's one `output_text` part and a reasoning item's one
 * `summary_text` part (`content_index` / `summary_index` 0), opened, appended to and closed.
 */

/** Opens a message item with its empty text part. */
export const openMessage = (id: string, index: number, life: Lifecycle, sink: ResponsesSink): OpenText => {
  const item: OpenText = { kind: "message", id, index, text: "" };
  life.emit(sink, "response.output_item.added", {
    output_index: index,
    item: toMessageItem(id, undefined, "in_progress"),
  });
  life.emit(sink, "response.content_part.added", { ...scope(item), content_index: 0, part: outputText("") });
  return item;
};

/** Opens a reasoning item with its empty summary part. */
export const openReasoning = (id: string, index: number, life: Lifecycle, sink: ResponsesSink): OpenText => {
  const item: OpenText = { kind: "reasoning", id, index, text: "" };
  life.emit(sink, "response.output_item.added", {
    output_index: index,
    item: toReasoningItem(id, undefined),
  });
  life.emit(sink, "response.reasoning_summary_part.added", {
    ...scope(item),
    summary_index: 0,
    part: summaryText(""),
  });
  return item;
};

/** One delta of the open part: `response.output_text.delta` or `response.reasoning_summary_text.delta`. */
export const appendText = (item: OpenText, delta: string, life: Lifecycle, sink: ResponsesSink): void => {
  item.text += delta;
  if (item.kind === "message") sink.textDelta(item.id, item.index, delta, life.next());
  else life.emit(sink, "response.reasoning_summary_text.delta", { ...scope(item), summary_index: 0, delta });
};

/**
 * Closes the part (its `.done` events) and returns the finished item. `cite`: the turn searched the
 * web, so the message's links are its `url_citation` annotations (each announced before the done events).
 */
export const closeText = (
  item: OpenText,
  status: ItemStatus,
  life: Lifecycle,
  sink: ResponsesSink,
  cite = false,
): OutputItem => {
  if (item.kind === "message") {
    const annotations = cite ? citedLinks(item.text).map(urlCitation) : [];
    for (const [annotationIndex, annotation] of annotations.entries())
      life.emit(sink, "response.output_text.annotation.added", {
        ...scope(item),
        content_index: 0,
        annotation_index: annotationIndex,
        annotation,
      });
    life.emit(sink, "response.output_text.done", {
      ...scope(item),
      content_index: 0,
      text: item.text,
      logprobs: [],
    });
    life.emit(sink, "response.content_part.done", {
      ...scope(item),
      content_index: 0,
      part: outputText(item.text, annotations),
    });
    return toMessageItem(item.id, item.text, status, annotations);
  }
  life.emit(sink, "response.reasoning_summary_text.done", {
    ...scope(item),
    summary_index: 0,
    text: item.text,
  });
  life.emit(sink, "response.reasoning_summary_part.done", {
    ...scope(item),
    summary_index: 0,
    part: summaryText(item.text),
  });
  return toReasoningItem(item.id, item.text);
};
