import type { AssistantEvent, BackendRequest, GatewayError, ParserEvent } from "@proxy/core";
import type { AttemptEnd, BackendEvent, TurnSummary } from "@proxy/core/gateway";
import type { RequestTrace, TracedTurnStart } from "@proxy/http-surface";
import { FIELD_LIMITS, jsonSize, keepErrorBody } from "./bounded.js";
import { type Redactor, summarizeBackendRequest, summarizeClientRequest } from "./redact.js";
import type { AttemptRecord, Decision, RequestLog, RequestRecord } from "./request-log.js";

/** Decisions kept per request: enough to explain a reply, not a flood from a runaway one. */
const MAX_DECISIONS = 200;
const RAW_BLOCK_LIMIT = 2_000;
/** Longest decision text, its quoted block included. */
const DECISION_LIMIT = 4_000;
/** Call names listed on a request's row. */
const MAX_ROW_CALLS = 16;

export interface TraceRecorderDeps {
  readonly log: RequestLog;
  readonly record: RequestRecord;
  /** Keep prompts, model text and arguments; off = timings, counts and decisions' reasons only. */
  readonly bodies: boolean;
  readonly redactor: Redactor;
  /** Milliseconds since the request arrived. */
  readonly elapsed: () => number;
  readonly headers: () => Readonly<Record<string, string>>;
}

/** Without bodies an error is named by its kind and code: an upstream's message may quote the prompt. */
const describeError = (error: GatewayError, bodies: boolean): string =>
  bodies
    ? `${error.kind}: ${error.message}`
    : `${error.kind}${error.code !== error.kind ? ` (${error.code})` : ""} [message not recorded: bodies off]`;

const describeEnd = (end: AttemptEnd, bodies: boolean): string => {
  const parts: string[] = [];
  if (end.violation) parts.push(`violation ${end.violation.kind}: ${end.violation.message}`);
  if (end.error) parts.push(`error ${describeError(end.error, bodies)}`);
  if (end.finish) parts.push(`finish ${end.finish.reason}${end.finish.raw ? ` (${end.finish.raw})` : ""}`);
  if (end.stopped) parts.push("backend stopped early by the gateway");
  return parts.join("; ") || "ended";
};

/**
 * Writes one request's turn into its record: backend requests, the raw model text, parser and gate
 * decisions, what the client received. Text is kept by reference in the pieces it arrived in and
 * counted against the log's byte bound; past a request's share the rest is marked truncated.
 */
export const createTraceRecorder = (deps: TraceRecorderDeps): RequestTrace => {
  const { log, record, bodies, redactor } = deps;
  let attempt: AttemptRecord | undefined;
  const decide = (kind: Decision["kind"], whole: string) => {
    if (record.decisions.length >= MAX_DECISIONS) return;
    const text = redactor.cut(whole, DECISION_LIMIT);
    if (!log.grow(record, text.length + 32)) return;
    record.decisions.push({ atMs: Math.round(deps.elapsed()), attempt: attempt?.attempt ?? 0, kind, text });
  };
  const keep = (value: unknown): unknown =>
    log.grow(record, jsonSize(value)) ? value : "[over the inspector's byte bound]";
  const rawOf = (raw: string) => (bodies ? `: ${redactor.cut(raw, RAW_BLOCK_LIMIT)}` : "");

  return {
    onTurnStart(turn: TracedTurnStart) {
      record.surface = turn.api;
      record.model = redactor.cut(turn.request.model, FIELD_LIMITS.model);
      log.count(record, record.model.length);
      record.stream = turn.stream;
      record.timings.turnStartMs = Math.round(deps.elapsed());
      if (bodies)
        record.client = keep(summarizeClientRequest(redactor, turn.request, turn.tools, deps.headers()));
    },
    onBackendRequest(request: BackendRequest, n: number) {
      const mode = request.tools === undefined ? "prompt" : "native";
      attempt = { attempt: n, mode, raw: [], rawTruncated: false };
      record.mode = mode;
      if (bodies) attempt.request = keep(summarizeBackendRequest(redactor, request, n));
      record.attempts.push(attempt);
    },
    onBackendEvent(event: BackendEvent) {
      switch (event.type) {
        case "stream-start":
          record.timings.backendStartMs ??= Math.round(deps.elapsed());
          return;
        case "text-delta":
          record.timings.firstTokenMs ??= Math.round(deps.elapsed());
          if (bodies && attempt !== undefined && !attempt.rawTruncated) {
            if (log.grow(record, event.delta.length)) attempt.raw.push(event.delta);
            else attempt.rawTruncated = true;
          }
          return;
        case "reasoning-delta":
        case "tool-call-start":
          record.timings.firstTokenMs ??= Math.round(deps.elapsed());
          return;
        case "tool-call-end":
          record.timings.firstTokenMs ??= Math.round(deps.elapsed());
          decide("call-found", `native call ${event.name} (${event.callId})${rawOf(event.arguments)}`);
          return;
        case "web-search": {
          if (event.status !== "completed" || record.searches.length >= MAX_DECISIONS) return;
          const query = bodies
            ? redactor.cut(event.query ?? "", FIELD_LIMITS.error)
            : "[not recorded: bodies off]";
          const id = redactor.cut(event.id, FIELD_LIMITS.model);
          if (log.grow(record, query.length + id.length + 32))
            record.searches.push({
              atMs: Math.round(deps.elapsed()),
              attempt: attempt?.attempt ?? 0,
              id,
              query,
            });
          return;
        }
        case "usage":
          if (record.usage === undefined) log.count(record, 128);
          record.usage = event.usage;
          return;
        default:
          return;
      }
    },
    onParserEvent(event: ParserEvent) {
      switch (event.type) {
        case "tool-call-start":
          decide("call-found", `block opened: ${event.name}`);
          return;
        case "tool-call-end":
          decide(
            "call-accepted",
            `block parsed: ${event.name} (${event.format})${event.repaired ? ", arguments repaired" : ""}${
              event.schemaWarning ? `, schema warning: ${event.schemaWarning}` : ""
            }${rawOf(event.arguments)}`,
          );
          return;
        case "tool-call-rejected":
          record.rejected++;
          decide(
            "call-rejected",
            `rejected ${event.name ?? "a block"}: ${event.reason}${event.strict ? " (strict)" : ""}, ${event.detail}${rawOf(event.raw)}`,
          );
          return;
        default:
          return;
      }
    },
    onAttemptEnd(end: AttemptEnd, n: number) {
      const text = describeEnd(end, bodies);
      const current = record.attempts.find((a) => a.attempt === n);
      if (current) {
        current.end = redactor.cut(text, FIELD_LIMITS.error);
        log.count(record, current.end.length);
      }
      decide("attempt-end", `attempt ${n}: ${text}`);
    },
    onAssistantBatch(batch: ReadonlyArray<AssistantEvent>) {
      for (const event of batch) {
        if (event.type === "text-delta") {
          if (bodies && log.grow(record, event.delta.length)) record.output.text.push(event.delta);
        } else if (event.type === "tool-call-end") {
          const args = bodies ? event.arguments : `[${event.arguments.length} chars]`;
          const name = redactor.cut(event.name, FIELD_LIMITS.model);
          if (record.calls.length < MAX_ROW_CALLS) {
            record.calls.push(name);
            log.count(record, name.length);
          }
          if (log.grow(record, args.length + name.length + event.callId.length))
            record.output.calls.push({ name, id: event.callId, arguments: args });
        }
      }
    },
    onTurnError(_error, body) {
      keepErrorBody(log, redactor, record, body, bodies);
    },
    onTurnEnd(summary: TurnSummary) {
      const t = summary.telemetry;
      record.toolCalls = t.callsEmitted;
      record.repairs = t.repairs;
      record.retries = t.retries;
      record.finish = summary.finish ?? "";
      if (summary.error) {
        record.error = redactor.cut(describeError(summary.error, bodies), FIELD_LIMITS.error);
        log.count(record, record.error.length);
      }
      if (t.stoppedEarly)
        decide("attempt-end", "stop after tools: the backend turn was stopped after the calls");
      if (t.truncated)
        decide(
          "attempt-end",
          "calls over the turn's cap were dropped (tool block max / parallel_tool_calls)",
        );
      if (t.deduped > 0) decide("attempt-end", `${t.deduped} repeated call(s) dropped`);
    },
  };
};
