import type { ToolPolicy, TurnRequest } from "@proxy/core";
import { unixSeconds } from "@proxy/core/gateway";
import { issueToGatewayError, type SurfaceDeps, type TurnFolder } from "@proxy/http-surface";
import * as Result from "effect/Result";
import * as SchemaParser from "effect/SchemaParser";
import { createSummaryCollector, withCompactionInstruction } from "./compaction.js";
import { decodeInput, type ItemResolver } from "./request/decode-input.js";
import { decodeResponsesTools } from "./request/decode-tools.js";
import type { Input } from "./request/input-schema.js";
import { mapInput, type ToolSource } from "./request/map-input.js";
import { CompactRequest } from "./request/request-schema.js";
import { toCompactionItem } from "./response/output-items.js";
import { toResponseUsage } from "./response/response-object.js";

const decodeCompact = SchemaParser.decodeUnknownResult(CompactRequest);
const NO_TOOLS: ToolPolicy = { tools: [], choice: { type: "none" }, parallel: false };

/** One `POST /responses/compact`: the summary turn, and the input whose user messages the answer keeps. */
export interface CompactTurn {
  readonly request: TurnRequest;
  readonly tools: ToolPolicy;
  readonly stream: false;
  readonly input: Input;
}

/** OpenAI's compacted output keeps the user's messages, followed by the single compaction item. */
const userMessages = (input: Input, nextId: () => string) => {
  const items = typeof input === "string" ? [{ role: "user" as const, content: input }] : input;
  return items.flatMap((item) =>
    (item.type === undefined || item.type === "message") && item.role === "user"
      ? [
          {
            type: "message" as const,
            id: nextId(),
            status: "completed" as const,
            role: "user" as const,
            content:
              typeof item.content === "string"
                ? [{ type: "input_text" as const, text: item.content }]
                : item.content,
          },
        ]
      : [],
  );
};

/**
 * The conversation's tools, for a backend that compacts its live thread natively; tools this
 * endpoint always ignored stay ignored (no native compaction then, never a refusal).
 */
const nativeCompaction = (body: CompactRequest, extra: ReadonlyArray<ToolSource>) => {
  try {
    return { tools: decodeResponsesTools(body, extra).policy, keep: "user-messages" as const };
  } catch {
    return undefined;
  }
};

/** Decodes a compact body into the summary turn (a 400 naming the field on bad input). */
export const decodeCompactTurn = (json: unknown, lookup: ItemResolver): CompactTurn => {
  const decoded = decodeCompact(json);
  if (Result.isFailure(decoded)) throw issueToGatewayError(decoded.failure);
  const body = decoded.success;
  const input = decodeInput(body.input, lookup);
  const mapped = mapInput(input);
  const turn: TurnRequest = {
    model: body.model,
    instructions: body.instructions ?? undefined,
    items: mapped.items,
    // As the conversation's ordinary turns carry them: its live thread is keyed by them.
    reasoningEffort: body.reasoning?.effort ?? undefined,
    reasoningSummary: body.reasoning?.summary ?? undefined,
  };
  const native = nativeCompaction(body, mapped.additionalTools);
  return { request: withCompactionInstruction(turn, native), tools: NO_TOOLS, stream: false, input };
};

/** Folds the summary turn into `{object:"response.compaction", output, usage}`. */
export const compactFolder = (turn: CompactTurn, deps: SurfaceDeps): TurnFolder => {
  const summary = createSummaryCollector();
  return {
    push: (event) => summary.push(event),
    end(terminal) {
      summary.push(terminal);
      const outcome = summary.outcome();
      if (!outcome.ok) return { error: outcome.error };
      return {
        body: {
          id: deps.ids.next("resp"),
          object: "response.compaction",
          created_at: unixSeconds(deps.clock),
          output: [
            ...userMessages(turn.input, () => deps.ids.next("msg")),
            toCompactionItem(deps.ids.next("cmp"), outcome.summary),
          ],
          usage: toResponseUsage(outcome.usage),
        },
      };
    },
  };
};
