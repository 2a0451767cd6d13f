import type { UsageCounts } from "@proxy/core/gateway";
import { Counter, type Registry } from "prom-client";

/** Per-key counters; the `key` label is a declared name, or `key#<n>` for the n-th entry of an unnamed key. */
export const createKeyMetrics = (registry: Registry) => {
  const requests = new Counter({
    name: "proxy_key_requests_total",
    help: "Turns per API key (its name, or key#<n>: the n-th entry of the key list, unnamed).",
    labelNames: ["key"] as const,
    registers: [registry],
  });
  const tokens = new Counter({
    name: "proxy_key_tokens_total",
    help: "Tokens per API key by kind (input includes cached; output includes reasoning).",
    labelNames: ["key", "kind"] as const,
    registers: [registry],
  });
  const toolCalls = new Counter({
    name: "proxy_key_tool_calls_total",
    help: "Tool calls emitted per API key.",
    labelNames: ["key"] as const,
    registers: [registry],
  });
  const webSearches = new Counter({
    name: "proxy_key_web_searches_total",
    help: "Hosted web searches the model provider ran, per API key.",
    labelNames: ["key"] as const,
    registers: [registry],
  });
  const errors = new Counter({
    name: "proxy_key_errors_total",
    help: "Turns that ended in an error, per API key.",
    labelNames: ["key"] as const,
    registers: [registry],
  });
  const limited = new Counter({
    name: "proxy_key_limited_total",
    help: "Requests refused by a per-key limit, by key and limit (rpm, tpm, tokensPerDay, webSearchesPerDay).",
    labelNames: ["key", "limit"] as const,
    registers: [registry],
  });
  return {
    observe(key: string, counts: UsageCounts) {
      requests.inc({ key }, counts.requests);
      tokens.inc({ key, kind: "input" }, counts.inputTokens);
      tokens.inc({ key, kind: "cached" }, counts.cachedInputTokens);
      tokens.inc({ key, kind: "output" }, counts.outputTokens);
      tokens.inc({ key, kind: "reasoning" }, counts.reasoningTokens);
      if (counts.toolCalls > 0) toolCalls.inc({ key }, counts.toolCalls);
      if (counts.webSearches > 0) webSearches.inc({ key }, counts.webSearches);
      if (counts.errors > 0) errors.inc({ key }, counts.errors);
    },
    limited(key: string, limit: string) {
      limited.inc({ key, limit });
    },
  };
};
export type KeyMetrics = ReturnType<typeof createKeyMetrics>;
