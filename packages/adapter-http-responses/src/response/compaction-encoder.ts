import type { IdGenerator } from "@proxy/core";
import type { StreamEncoder } from "@proxy/http-surface";
import { createSummaryCollector } from "../compaction.js";
import type { ResponsesEncoder } from "./encoder.js";
import type { ResponsesSink } from "./event-sinks.js";
import { toCompactionItem } from "./output-items.js";

/**
 * codex remote compaction v2: the turn's text is the summary, sent as exactly one `compaction` item,
 * then `response.completed` (or `response.failed` when the turn failed); nothing in between.
 */
export const compactionEncoder = (
  encoder: ResponsesEncoder,
  ids: IdGenerator,
): StreamEncoder<ResponsesSink> => {
  const summary = createSummaryCollector();
  return {
    start: (sink) => encoder.start(sink),
    push: (event) => summary.push(event),
    end(terminal, sink) {
      summary.push(terminal);
      const outcome = summary.outcome();
      if (!outcome.ok) return encoder.fail(outcome.error, sink);
      encoder.addItem(toCompactionItem(ids.next("cmp"), outcome.summary), sink);
      encoder.complete(outcome.usage, sink);
    },
  };
};
