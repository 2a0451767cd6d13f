import { type BackendEvent, GatewayError, type Usage } from "@proxy/core";
import type { Logger } from "../logger.js";
import { type CodexTurnError, mapCodexTurnError } from "../map-codex-error.js";
import { mapCodexFinishReason } from "../map-codex-finish-reason.js";

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
export const createTurnMapper = (logger: Logger): TurnMapper => {
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

  return {
    done: () => finished,
    map(method, params) {
      if (finished) return [];
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
          if (typeof item?.type === "string" && ACTION_ITEMS.has(item.type))
            logger.warn({ item: item.type }, "codex started a host action item; sealing should prevent this");
          return [];
        }
        case "warning":
          if (!PHANTOM_MCP.test(String(params.message)))
            logger.debug({ message: params.message }, "codex warning");
          return [];
        default:
          return [];
      }
    },
  };
};
