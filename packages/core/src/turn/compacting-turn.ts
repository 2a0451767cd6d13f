import { GatewayError } from "../errors/gateway-error.js";
import type { AssistantEvent } from "../events/stream-event.js";
import { COMPACTION_INSTRUCTION, type CompactFirst, renderCompactionSummary } from "../model/compaction.js";
import type { TurnRequest } from "../model/conversation.js";
import type { ToolPolicy } from "../model/tool-spec.js";
import { addUsage, type Usage } from "../model/usage.js";
import { flattenBatches } from "../ports/backend-stream.js";
import { chooseToolMode, renderForMode } from "./native-turn.js";
import { type AssistantBatch, runTurn, type TurnDeps, type TurnHandle, type TurnInput } from "./run-turn.js";
import { estimatePromptTokens } from "./usage-meter.js";

const NO_TOOLS: ToolPolicy = { tools: [], choice: { type: "none" }, parallel: false };

/** The gateway's estimate of the prompt the ordinary turn would send: what the trigger is compared with. */
const promptTokens = (deps: TurnDeps, input: TurnInput): number => {
  const { request, tools, settings } = input;
  const mode = chooseToolMode(settings.toolMode, deps.backend, tools, request.model);
  const rendered = renderForMode(mode instanceof GatewayError ? "prompt" : mode, request, tools, settings);
  return estimatePromptTokens(deps.tokens, rendered.request);
};

/**
 * The summary turn: the conversation plus the summary prompt, without tools or answer formats.
 * With the gateway's own prompt it is marked as a compaction (`keep: "none"`: the client drops
 * everything before the summary), so a backend holding the conversation's thread compacts that
 * thread natively; the client's own prompt is run as written, which no native compaction can.
 */
const summaryRequest = (request: TurnRequest, first: CompactFirst, tools: ToolPolicy): TurnRequest => ({
  ...request,
  compactFirst: undefined,
  outputSchema: undefined,
  jsonObject: undefined,
  stopSequences: undefined,
  maxOutputTokens: undefined,
  items: [
    ...request.items,
    {
      type: "message",
      role: "user",
      content: [{ type: "text", text: first.instructions ?? COMPACTION_INSTRUCTION }],
    },
  ],
  ...(first.instructions === undefined ? { compaction: { keep: "none" as const, tools } } : {}),
});

/** The answer after compaction sees the summary alone, exactly as the client will send it back. */
const answerRequest = (request: TurnRequest, summary: string): TurnRequest => ({
  ...request,
  compactFirst: undefined,
  items: [
    { type: "message", role: "user", content: [{ type: "text", text: renderCompactionSummary(summary) }] },
  ],
});

/**
 * `runTurn` for a request that may compact first (`request.compactFirst`): below the trigger it is
 * the ordinary turn. Otherwise one stream of two turns: the summary turn (its text becomes one
 * `compaction` event, its `stream-start` the stream's), then, unless paused, the answer turn over
 * the summary (its events after its own `stream-start`). The telemetry is the turn under way's,
 * with the usage of both.
 */
export const runCompactingTurn = (deps: TurnDeps, input: TurnInput): TurnHandle => {
  const first = input.request.compactFirst;
  const plain: TurnInput = { ...input, request: { ...input.request, compactFirst: undefined } };
  if (first === undefined || (first.triggerTokens > 0 && promptTokens(deps, plain) < first.triggerTokens))
    return runTurn(deps, plain);
  const summaryTurn = runTurn(deps, {
    ...input,
    request: summaryRequest(input.request, first, input.tools),
    tools: NO_TOOLS,
  });
  let current = summaryTurn;
  let compactionUsage: Usage | undefined;

  async function* batches(): AsyncGenerator<AssistantBatch> {
    let summary = "";
    let usage: Usage | undefined;
    for await (const batch of summaryTurn.batches) {
      const out: AssistantEvent[] = [];
      for (const event of batch) {
        if (event.type === "stream-start") out.push(event);
        else if (event.type === "text-delta") summary += event.delta;
        else if (event.type === "usage") usage = event.usage;
        else if (event.type === "error") {
          out.push(event);
          yield out;
          return;
        }
      }
      if (out.length > 0) yield out;
    }
    summary = summary.trim();
    if (summary === "") {
      yield [
        { type: "error", error: new GatewayError("backend_error", "The compaction produced no summary.") },
      ];
      return;
    }
    compactionUsage = summaryTurn.telemetry().usage;
    const compaction: AssistantEvent = { type: "compaction", summary, usage };
    if (first?.pause === true) {
      yield [compaction, { type: "finish", finish: { reason: "stop", raw: "compaction" } }];
      return;
    }
    yield [compaction];
    const answer = runTurn(deps, { ...input, request: answerRequest(input.request, summary) });
    current = answer;
    for await (const batch of answer.batches) {
      const out = batch[0]?.type === "stream-start" ? batch.slice(1) : batch;
      if (out.length > 0) yield out;
    }
  }

  const turnBatches = batches();
  return {
    batches: turnBatches,
    events: flattenBatches(turnBatches),
    telemetry: () => {
      const t = current.telemetry();
      if (current === summaryTurn) return t;
      const usage = t.usage === undefined ? compactionUsage : addUsage(compactionUsage, t.usage);
      return Object.freeze({ ...t, usage });
    },
    route: () => current.route(),
  };
};
