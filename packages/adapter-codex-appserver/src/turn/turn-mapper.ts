import { addUsage, GatewayError, type NativeToolCall, type Usage } from "@proxy/core";
import type { BackendEvent } from "@proxy/core/gateway";
import type { Logger } from "../logger.js";
import { mapCodexTurnError } from "../map-codex-error.js";
import { mapCodexFinishReason } from "../map-codex-finish-reason.js";
import {
  type CodexNotification,
  decodeCodexNotification,
  type TokenCounts,
  turnIdOf,
} from "./codex-notifications.js";
import type { ToolNames } from "./tool-names.js";
import { webSearchEvent } from "./web-search-item.js";

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

/** Start-up probes of MCP servers nobody configured surface as errors; they are noise. */
const PHANTOM_MCP = /resources\/list failed|unknown MCP server/i;

const num = (u: number | null | undefined): number => (typeof u === "number" && Number.isFinite(u) ? u : 0);

export const toUsage = (u: TokenCounts): Usage => ({
  inputTokens: num(u.inputTokens),
  outputTokens: num(u.outputTokens),
  totalTokens: num(u.totalTokens),
  cachedInputTokens: num(u.cachedInputTokens),
  reasoningOutputTokens: num(u.reasoningOutputTokens),
});

/** `total` minus what the thread had used before this turn: a continued thread's turn's own usage. */
const since = (total: Usage, before: Usage | undefined): Usage =>
  before === undefined
    ? total
    : {
        inputTokens: Math.max(0, total.inputTokens - before.inputTokens),
        outputTokens: Math.max(0, total.outputTokens - before.outputTokens),
        totalTokens: Math.max(0, total.totalTokens - before.totalTokens),
        cachedInputTokens: Math.max(0, (total.cachedInputTokens ?? 0) - (before.cachedInputTokens ?? 0)),
        reasoningOutputTokens: Math.max(
          0,
          (total.reasoningOutputTokens ?? 0) - (before.reasoningOutputTokens ?? 0),
        ),
      };

/**
 * The model's native calls in a turn with dynamic tools. A call is reported from its raw
 * Responses item (the upstream `call_id` and the exact `arguments` string); the response is over
 * for the client once the model's response completed and codex has asked for every such call
 * (`item/tool/call` may arrive just after `rawResponse/completed`). Calls to names that are not
 * our dynamic tools are codex's own business: it answers them "unsupported" and samples again.
 */
const createNativeCalls = (names: ToolNames, historyCallIds: ReadonlySet<string>) => {
  const awaiting = new Map<string, NativeToolCall>();
  const asked = new Set<string>();
  let responded = false;
  let usage: Usage | undefined;
  return {
    map(n: CodexNotification): BackendEvent[] {
      if (n.method === "rawResponseItem/completed") {
        const { type, call_id: callId, name, arguments: args } = n.params.item;
        if (type !== "function_call" || typeof callId !== "string" || typeof args !== "string") return [];
        // Injected history is echoed as raw items too (0.169 tags them with another turn id): never a new call.
        if (historyCallIds.has(callId)) return [];
        const client = typeof name === "string" ? names.toClient(name) : undefined;
        if (client === undefined) return [];
        awaiting.set(callId, { callId, name: client, arguments: args });
        return [{ type: "tool-call-end", callId, name: client, arguments: args }];
      }
      if (n.method === "rawResponse/completed") {
        if (n.params.usage) usage = addUsage(usage, toUsage(n.params.usage));
        responded = awaiting.size > 0;
      } else if (n.method === "item/tool/call") asked.add(n.params.callId);
      return [];
    },
    complete: () => responded && [...awaiting.keys()].every((id) => asked.has(id)),
    calls: () => [...awaiting.values()],
    usage: () => usage,
  };
};

/**
 * How the turn ended for the client, when it did: codex's turn ended too (`completed`,
 * `interrupted`, `failed`), waits on the client's tool results (`tool_calls`), or is still
 * running after a broken stream (`broken`).
 */
export type TurnEnding = "completed" | "tool_calls" | "interrupted" | "failed" | "broken";

export interface TurnMapper {
  /** The events one notification of this thread produces (possibly none). */
  map(method: string, params: unknown): BackendEvent[];
  /** True once the turn is over for the client (`turn/completed`, or a failure codex would retry). */
  done(): boolean;
  ending(): TurnEnding | undefined;
  /** What the model said in this turn, as the client was told: its text and its native calls. */
  reply(): {
    readonly text: string;
    readonly calls: ReadonlyArray<NativeToolCall>;
    readonly responses: number;
  };
  /** The thread's running usage total as codex last reported it. */
  threadTotal(): Usage | undefined;
}

export interface TurnMapperOptions {
  readonly names?: ToolNames | undefined;
  readonly historyCallIds?: ReadonlySet<string> | undefined;
  /** The thread's usage total before this turn (a continued thread), subtracted from codex's totals. */
  readonly usageBefore?: Usage | undefined;
  /** The codex turn being read: notifications naming another turn (a replayed history's) are skipped. */
  readonly turnId?: string | undefined;
  /** The turn's model's context window in tokens, told with a full context's error. */
  readonly contextWindow?: number | undefined;
  /** The request asked for the hosted web search: its `webSearch` items are the model's searches. */
  readonly webSearch?: boolean | undefined;
}

/**
 * Pure translation of one thread's v2 notifications into `BackendEvent`s. Usage is buffered and
 * emitted once, right before the terminal event: the turn's own usage, never the thread's running
 * total (codex's `thread/tokenUsage/updated.total` minus the total before the turn; on native turns
 * the sum of the turn's model responses, which counts a tool step in the request that ran it).
 */
export const createTurnMapper = (logger: Logger, options: TurnMapperOptions = {}): TurnMapper => {
  const native = options.names
    ? createNativeCalls(options.names, options.historyCallIds ?? new Set())
    : undefined;
  let total: Usage | undefined;
  let lastError: unknown;
  let summaryIndex = 0;
  let ending: TurnEnding | undefined;
  let emitted = false;
  let text = "";
  /** Model responses seen (raw events); more than one means codex sampled again on its own. */
  let responses = 0;

  const usage = (): Usage | undefined =>
    native?.usage() ?? (total ? since(total, options.usageBefore) : undefined);
  const withUsage = (events: BackendEvent[]): BackendEvent[] => {
    const u = usage();
    return u ? [{ type: "usage", usage: u }, ...events] : events;
  };

  const map = (n: CodexNotification): BackendEvent[] => {
    switch (n.method) {
      case "item/agentMessage/delta":
        if (n.params.delta === "") return [];
        emitted = true;
        text += n.params.delta;
        return [{ type: "text-delta", delta: n.params.delta }];
      case "item/reasoning/summaryTextDelta": {
        if (n.params.delta === "") return [];
        const index = num(n.params.summaryIndex);
        const separator = index !== summaryIndex ? "\n\n" : "";
        summaryIndex = index;
        emitted = true;
        return [{ type: "reasoning-delta", delta: separator + n.params.delta }];
      }
      case "thread/tokenUsage/updated": {
        const source = n.params.tokenUsage.total ?? n.params.tokenUsage.last;
        if (source) total = toUsage(source);
        return [];
      }
      case "error": {
        const error = n.params.error ?? undefined;
        const message = typeof error?.message === "string" ? error.message : "";
        if (PHANTOM_MCP.test(message)) logger.debug({ message }, "codex: phantom MCP error ignored");
        else if (n.params.willRetry !== true) lastError = error;
        else if (!emitted) logger.info({ message }, "codex: upstream retry in progress");
        else {
          // codex would re-request and stream the answer again after what we already sent:
          // the client would get the partial text twice. Fail the turn instead.
          ending = "broken";
          const why = `the model provider's stream broke after partial output (${message})`;
          return [
            { type: "error", error: new GatewayError("backend_error", why, { code: "stream_interrupted" }) },
          ];
        }
        return [];
      }
      case "turn/completed": {
        const { status } = n.params.turn;
        if (status === "failed") {
          ending = "failed";
          const error = (n.params.turn.error ?? lastError) as Parameters<typeof mapCodexTurnError>[0];
          return withUsage([{ type: "error", error: mapCodexTurnError(error, options.contextWindow) }]);
        }
        ending = status === "completed" ? "completed" : "interrupted";
        return withUsage([{ type: "finish", finish: mapCodexFinishReason(status) }]);
      }
      case "item/completed":
        if (n.params.item.type !== "webSearch" || !options.webSearch) return [];
        emitted = true;
        return [webSearchEvent(n.params.item, "completed")];
      case "item/started": {
        const { type } = n.params.item;
        if (type === "webSearch" && options.webSearch) {
          emitted = true;
          return [webSearchEvent(n.params.item, "in_progress")];
        }
        const ours = native !== undefined && type === "dynamicToolCall";
        if (ACTION_ITEMS.has(type) && !ours)
          logger.warn({ item: type }, "codex started a host action item; sealing should prevent this");
        return [];
      }
      case "warning":
        if (!PHANTOM_MCP.test(String(n.params.message)))
          logger.debug({ message: n.params.message }, "codex warning");
        return [];
      default: {
        if (n.method === "rawResponse/completed") responses++;
        const calls = native ? native.map(n) : [];
        if (calls.length > 0) emitted = true;
        return calls;
      }
    }
  };

  const onInvalid = (method: string, issue: string) =>
    logger.warn({ method, issue }, "codex: a notification did not have the expected shape; ignored");

  return {
    done: () => ending !== undefined,
    ending: () => ending,
    reply: () => ({ text, calls: native?.calls() ?? [], responses: Math.max(1, responses) }),
    threadTotal: () => total,
    map(method, params) {
      if (ending !== undefined) return [];
      const note = decodeCodexNotification(method, params, onInvalid);
      const noteTurn = options.turnId === undefined ? undefined : turnIdOf(note);
      if (noteTurn !== undefined && noteTurn !== null && noteTurn !== options.turnId) return [];
      const events = map(note);
      if (ending !== undefined || native === undefined || !native.complete()) return events;
      // The model answered with function calls: the client runs them and comes back with the results.
      ending = "tool_calls";
      return [
        ...events,
        ...withUsage([{ type: "finish", finish: { reason: "tool_calls", raw: "function_call" } }]),
      ];
    },
  };
};
