import { addUsage, type BackendEvent, GatewayError, type Usage } from "@proxy/core";
import type { Logger } from "../logger.js";
import { type CodexTurnError, mapCodexTurnError } from "../map-codex-error.js";
import { mapCodexFinishReason } from "../map-codex-finish-reason.js";
import type { ToolNames } from "./tool-names.js";

type Params = Record<string, unknown>;

/** Item types that mean codex tried to act on the host; sealing should make them impossible. */
const ACTION_ITEMS = new Set([
  "commandExecution",
  "fileChange",
  "mcpToolCall",
  "dynamicToolCall",
  "collabAgentToolCall",
  "webSearch",
  "imageView",
]);

/** Seed 001: start-up probes of MCP servers nobody configured surface as errors; they are noise. */
const PHANTOM_MCP = /resources\/list failed|unknown MCP server/i;

const num = (u: unknown): number => (typeof u === "number" && Number.isFinite(u) ? u : 0);

const toUsage = (u: Params): Usage => ({
  inputTokens: num(u.inputTokens),
  outputTokens: num(u.outputTokens),
  totalTokens: num(u.totalTokens),
  cachedInputTokens: num(u.cachedInputTokens),
  reasoningOutputTokens: num(u.reasoningOutputTokens),
});

/**
 * The model's native calls in a turn with dynamic tools. A call is reported from its raw
 * Responses item (the upstream `call_id` and the exact `arguments` string); the response is over
 * for the client once the model's response completed and codex has asked for every such call
 * (`item/tool/call` may arrive just after `rawResponse/completed`). Calls to names that are not
 * our dynamic tools are codex's own business: it answers them "unsupported" and samples again.
 */
const createNativeCalls = (names: ToolNames, historyCallIds: ReadonlySet<string>) => {
  const awaiting = new Set<string>();
  const asked = new Set<string>();
  let responded = false;
  let usage: Usage | undefined;
  return {
    map(method: string, params: Params): BackendEvent[] {
      if (method === "rawResponseItem/completed") {
        const item = params.item as Params | undefined;
        const { call_id: callId, name, arguments: args } = item ?? {};
        if (item?.type !== "function_call" || typeof callId !== "string" || typeof args !== "string")
          return [];
        // Injected history is echoed as raw items too (0.169 tags them with another turn id): never a new call.
        if (historyCallIds.has(callId)) return [];
        const client = typeof name === "string" ? names.toClient(name) : undefined;
        if (client === undefined) return [];
        awaiting.add(callId);
        return [{ type: "tool-call", callId, name: client, arguments: args }];
      }
      if (method === "rawResponse/completed") {
        const step = params.usage as Params | undefined;
        if (step) usage = addUsage(usage, toUsage(step));
        responded = awaiting.size > 0;
      } else if (method === "item/tool/call" && typeof params.callId === "string") asked.add(params.callId);
      return [];
    },
    complete: () => responded && [...awaiting].every((id) => asked.has(id)),
    usage: () => usage,
  };
};

export interface TurnMapper {
  /** The events one notification of this thread produces (possibly none). */
  map(method: string, params: Params): BackendEvent[];
  /** True once the turn is over for the client (`turn/completed`, or a failure codex would retry). */
  done(): boolean;
}

/**
 * Pure translation of one thread's v2 notifications into `BackendEvent`s. Usage is buffered and
 * emitted once, right before the terminal event, from codex's own `thread/tokenUsage/updated`.
 * It takes `total`, not `last`: the thread is ephemeral and holds only this turn, so `total` is
 * exactly this turn's usage, including any follow-up sampling step (`last` is only the final one).
 */
export const createTurnMapper = (
  logger: Logger,
  names?: ToolNames,
  historyCallIds: ReadonlySet<string> = new Set(),
): TurnMapper => {
  const native = names ? createNativeCalls(names, historyCallIds) : undefined;
  let usage: Usage | undefined;
  let lastError: CodexTurnError | undefined;
  let summaryIndex = 0;
  let finished = false;
  let emitted = false;

  const terminal = (turn: Params): BackendEvent[] => {
    finished = true;
    const out: BackendEvent[] = usage ? [{ type: "usage", usage }] : [];
    if (turn.status === "failed") {
      const error = (turn.error as CodexTurnError | null) ?? lastError;
      return [...out, { type: "error", error: mapCodexTurnError(error) }];
    }
    return [...out, { type: "finish", finish: mapCodexFinishReason(turn.status) }];
  };

  const map = (method: string, params: Params): BackendEvent[] => {
    switch (method) {
      case "item/agentMessage/delta":
        if (typeof params.delta !== "string" || params.delta === "") return [];
        emitted = true;
        return [{ type: "text-delta", delta: params.delta }];
      case "item/reasoning/summaryTextDelta": {
        if (typeof params.delta !== "string" || params.delta === "") return [];
        const index = num(params.summaryIndex);
        const separator = index !== summaryIndex ? "\n\n" : "";
        summaryIndex = index;
        emitted = true;
        return [{ type: "reasoning-delta", delta: separator + params.delta }];
      }
      case "thread/tokenUsage/updated": {
        const tokenUsage = params.tokenUsage as { total?: Params; last?: Params } | undefined;
        const source = tokenUsage?.total ?? tokenUsage?.last;
        if (source) usage = toUsage(source);
        return [];
      }
      case "error": {
        const error = params.error as CodexTurnError | undefined;
        const text = typeof error?.message === "string" ? error.message : "";
        if (PHANTOM_MCP.test(text)) logger.debug({ message: text }, "codex: phantom MCP error ignored");
        else if (params.willRetry !== true) lastError = error;
        else if (!emitted) logger.info({ message: text }, "codex: upstream retry in progress");
        else {
          // codex would re-request and stream the answer again after what we already sent:
          // the client would get the partial text twice. Fail the turn instead.
          finished = true;
          const why = `the model provider's stream broke after partial output (${text})`;
          return [
            {
              type: "error",
              error: new GatewayError("backend_error", why, { code: "stream_interrupted" }),
            },
          ];
        }
        return [];
      }
      case "turn/completed":
        return terminal((params.turn as Params | undefined) ?? {});
      case "item/started": {
        const item = params.item as Params | undefined;
        const ours = native !== undefined && item?.type === "dynamicToolCall";
        if (typeof item?.type === "string" && ACTION_ITEMS.has(item.type) && !ours)
          logger.warn({ item: item.type }, "codex started a host action item; sealing should prevent this");
        return [];
      }
      case "warning":
        if (!PHANTOM_MCP.test(String(params.message)))
          logger.debug({ message: params.message }, "codex warning");
        return [];
      default: {
        const calls = native ? native.map(method, params) : [];
        if (calls.length > 0) emitted = true;
        return calls;
      }
    }
  };

  return {
    done: () => finished,
    map(method, params) {
      if (finished) return [];
      const events = map(method, params);
      if (finished || native === undefined || !native.complete()) return events;
      // The model answered with function calls: the client runs them and comes back statelessly.
      finished = true;
      const total = native.usage() ?? usage;
      return [
        ...events,
        ...(total ? [{ type: "usage", usage: total } as const] : []),
        { type: "finish", finish: { reason: "tool_calls", raw: "function_call" } },
      ];
    },
  };
};
