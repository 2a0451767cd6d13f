import type * as Api from "@opentelemetry/api";
import type { GatewayError } from "@proxy/core";
import type { TurnSummary } from "@proxy/core/gateway";
import { clip } from "./clip.js";

/** Spans for at most this many tool calls per turn (and as many names listed); the counts stay exact. */
const MAX_TOOL_SPANS = 32;
/** The longest text a span's name part or attribute carries (the tracer provider cuts attributes too). */
export const SPAN_TEXT_CHARS = 256;
/** Tool names in span names are cut shorter: OpenAI's own tool names are at most 64 characters. */
const TOOL_NAME_CHARS = 64;

/**
 * A failed span's status message: the error's kind and code, both the gateway's own words. Never
 * its message, which may quote what the client or the backend wrote (an upstream 400 citing the
 * prompt), and traces carry no prompt text.
 */
export const statusMessage = (error: GatewayError | undefined): string =>
  error === undefined
    ? ""
    : error.code !== undefined && /^[\w.-]{1,64}$/.test(error.code)
      ? `${error.kind}: ${error.code}`
      : error.kind;

/** GenAI semantic conventions' operation per surface. */
const OPERATION: Readonly<Record<string, string>> = {
  chat: "chat",
  responses: "chat",
  messages: "chat",
  gemini: "generate_content",
};

/**
 * Writes one request's trace from its turn summary, after the fact, with explicit start and end
 * times: nothing runs on the turn's path. Spans: decode (arrival → turn start), admission (turn
 * start → the backend accepted or refused it), backend turn (accepted → end, with time to first
 * token), parse and encode (incremental, so they span the stream they worked on), and one span per
 * emitted tool call. No prompt or completion text is ever recorded.
 */
export const writeTurnSpans = (
  api: typeof Api,
  tracer: Api.Tracer,
  summary: TurnSummary,
  route: string | undefined,
): void => {
  const timings = summary.timings;
  if (timings === undefined) return;
  const at = (offsetMs: number) => timings.arrivedAt + offsetMs;
  const end = at(timings.endedMs);
  const operation = OPERATION[summary.api] ?? "chat";
  const usage = summary.telemetry.usage;
  const t = summary.telemetry;
  // Surfaces bound the model name; a span name is never cut by the SDK, so it is cut here too.
  const model = clip(summary.model, SPAN_TEXT_CHARS);
  const status = statusMessage(summary.error);
  const attributes: Api.Attributes = {
    "gen_ai.operation.name": operation,
    "gen_ai.request.model": model,
    "proxy.api": summary.api,
    "proxy.stream": summary.stream,
    "proxy.output_mode": summary.outputMode,
    "proxy.tool_calls.count": t.callsEmitted,
    "proxy.tool_calls.detected": t.callsDetected,
    "proxy.tool_calls.parse_failures": t.parseFailures,
    "proxy.corrective_retries": t.retries,
  };
  if (t.webSearches > 0) attributes["proxy.web_searches.count"] = t.webSearches;
  if (t.toolMode !== undefined) attributes["proxy.tool_mode"] = t.toolMode;
  if (t.calledTools.length > 0)
    attributes["gen_ai.tool.name"] = [...new Set(t.calledTools)].slice(0, MAX_TOOL_SPANS);
  if (usage !== undefined) {
    attributes["gen_ai.usage.input_tokens"] = usage.inputTokens;
    attributes["gen_ai.usage.output_tokens"] = usage.outputTokens;
    if (usage.cachedInputTokens !== undefined)
      attributes["gen_ai.usage.cache_read.input_tokens"] = usage.cachedInputTokens;
    if (usage.reasoningOutputTokens !== undefined)
      attributes["proxy.usage.reasoning_tokens"] = usage.reasoningOutputTokens;
    if (usage.estimated === true) attributes["proxy.usage.estimated"] = true;
  }
  if (summary.finish !== undefined) attributes["gen_ai.response.finish_reasons"] = [summary.finish];
  if (summary.caller?.name !== undefined) attributes["proxy.api_key.name"] = summary.caller.name;
  if (route !== undefined) attributes["proxy.route"] = route;
  if (summary.error !== undefined) attributes["error.type"] = summary.error.kind;

  const root = tracer.startSpan(`${operation} ${model}`.trim(), {
    kind: api.SpanKind.SERVER,
    startTime: timings.arrivedAt,
    attributes,
  });
  const parent = api.trace.setSpan(api.ROOT_CONTEXT, root);
  const span = (
    name: string,
    from: number,
    to: number,
    extra: Api.Attributes = {},
    failed = false,
    context: Api.Context = parent,
  ) => {
    const s = tracer.startSpan(name, { startTime: at(from), attributes: extra }, context);
    if (failed) s.setStatus({ code: api.SpanStatusCode.ERROR, message: status });
    s.end(at(Math.max(from, to)));
    return s;
  };
  const failed = summary.error !== undefined;
  const decoded = timings.decodedMs;
  span("decode", 0, decoded ?? timings.endedMs, {}, failed && decoded === undefined);
  const accepted = timings.acceptedMs;
  if (decoded !== undefined) {
    // Refused before the first byte (a limit, a full queue, bad tools): the admission span failed.
    const refused =
      failed && (accepted === undefined || summary.ttfbMs === undefined || summary.ttfbMs <= accepted);
    span("admission", decoded, accepted ?? timings.endedMs, {}, refused);
    if (accepted !== undefined && !refused) {
      const ttft = summary.ttfbMs === undefined ? undefined : summary.ttfbMs - decoded;
      const backend = tracer.startSpan(
        "backend turn",
        {
          startTime: at(accepted),
          attributes: {
            "gen_ai.request.model": model,
            ...(ttft === undefined ? {} : { "proxy.time_to_first_token_ms": Math.round(ttft) }),
            ...(t.backendTurnId === undefined ? {} : { "proxy.backend_turn_id": t.backendTurnId }),
          },
        },
        parent,
      );
      if (summary.ttfbMs !== undefined) backend.addEvent("first token", at(summary.ttfbMs));
      if (failed) backend.setStatus({ code: api.SpanStatusCode.ERROR, message: status });
      backend.end(end);
      const parse = span("parse", accepted, timings.endedMs, {
        "proxy.tool_calls.detected": t.callsDetected,
        "proxy.tool_calls.parse_failures": t.parseFailures,
        "proxy.tool_calls.repairs": t.repairs,
      });
      const inParse = api.trace.setSpan(api.ROOT_CONTEXT, parse);
      for (const [i, name] of t.calledTools.slice(0, MAX_TOOL_SPANS).entries())
        span(
          `tool_call ${clip(name, TOOL_NAME_CHARS)}`,
          timings.endedMs,
          timings.endedMs,
          { "gen_ai.tool.name": name, ...(t.callIds[i] ? { "gen_ai.tool.call.id": t.callIds[i] } : {}) },
          false,
          inParse,
        );
      span("encode", summary.ttfbMs ?? accepted, timings.endedMs, { "proxy.stream": summary.stream });
    }
  }
  if (failed) root.setStatus({ code: api.SpanStatusCode.ERROR, message: status });
  root.end(end);
};
