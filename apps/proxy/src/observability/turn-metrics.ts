import type { TurnSummary } from "@proxy/core/gateway";
import { Counter, type Registry } from "prom-client";

const MAX_TOOL_LABELS = 100;
const OTHER_TOOLS = "_other";

/** Turns and the tool calls in them: outcomes, calls by name, parse and strict failures, retries. */
export const createTurnMetrics = (registry: Registry) => {
  const toolCalls = new Counter({
    name: "proxy_tool_calls_emitted_total",
    help: "Tool calls emitted to clients.",
    labelNames: ["api"] as const,
    registers: [registry],
  });
  const parseFailures = new Counter({
    name: "proxy_tool_parse_failures_total",
    help: "Sentinel blocks that could not be parsed.",
    registers: [registry],
  });
  const strictFailures = new Counter({
    name: "proxy_tool_strict_failures_total",
    help: "Strict tool calls that failed validation.",
    registers: [registry],
  });
  const retries = new Counter({
    name: "proxy_corrective_retries_total",
    help: "Corrective backend turns.",
    registers: [registry],
  });
  const failuresAfterCalls = new Counter({
    name: "proxy_backend_failures_after_tool_calls_total",
    help: "Backend failures after every streamed tool call was complete (the turn finished with the calls).",
    labelNames: ["api", "kind"] as const,
    registers: [registry],
  });
  const toolCallsByName = new Counter({
    name: "proxy_tool_calls_by_name_total",
    help: `Tool calls emitted, by tool name (the first ${MAX_TOOL_LABELS} names seen; later ones count as "${OTHER_TOOLS}").`,
    labelNames: ["tool"] as const,
    registers: [registry],
  });
  const toolWarnings = new Counter({
    name: "proxy_tool_call_warnings_total",
    help: "Calls accepted with a caveat: JSON repaired, or a soft schema mismatch tolerated.",
    labelNames: ["kind"] as const,
    registers: [registry],
  });
  const webSearches = new Counter({
    name: "proxy_web_searches_total",
    help: "Hosted web searches the model provider ran, by API.",
    labelNames: ["api"] as const,
    registers: [registry],
  });
  const turns = new Counter({
    name: "proxy_turns_total",
    help: "Turns by API and outcome.",
    labelNames: ["api", "outcome"] as const,
    registers: [registry],
  });
  // Tool names come from clients: bound the label set so /metrics cannot grow without limit.
  const toolLabels = new Set<string>();
  const toolLabel = (name: string): string => {
    if (toolLabels.has(name)) return name;
    if (toolLabels.size >= MAX_TOOL_LABELS) return OTHER_TOOLS;
    toolLabels.add(name);
    return name;
  };

  return {
    observeTurn(summary: TurnSummary) {
      const t = summary.telemetry;
      if (t.callsEmitted > 0) toolCalls.inc({ api: summary.api }, t.callsEmitted);
      if (t.webSearches > 0) webSearches.inc({ api: summary.api }, t.webSearches);
      if (t.parseFailures > 0) parseFailures.inc(t.parseFailures);
      if (t.strictFailures > 0) strictFailures.inc(t.strictFailures);
      if (t.retries > 0) retries.inc(t.retries);
      for (const name of t.calledTools) toolCallsByName.inc({ tool: toolLabel(name) });
      // Counted from the exact counters: the warnings list kept for the log line is capped.
      if (t.repairs > 0) toolWarnings.inc({ kind: "json-repaired" }, t.repairs);
      if (t.schemaWarnings > 0) toolWarnings.inc({ kind: "soft-schema" }, t.schemaWarnings);
      if (t.failureAfterCalls !== undefined)
        failuresAfterCalls.inc({ api: summary.api, kind: t.failureAfterCalls.kind });
      turns.inc({
        api: summary.api,
        outcome: summary.error ? summary.error.kind : (summary.finish ?? "unknown"),
      });
    },
  };
};
