import * as Result from "effect/Result";
import * as Schema from "effect/Schema";
import * as SchemaParser from "effect/SchemaParser";

/**
 * The app-server v2 notifications a turn reads, decoded with Schema instead of read by casts: a
 * union by `method`, one member per notification (shapes from codex 0.169's `gen/v2` types, only
 * the fields the gateway uses; unknown fields are ignored). To read another notification, add its
 * member to `MEMBERS`; methods not listed decode to `{ method: "other" }` without being parsed.
 */

const Count = Schema.optional(Schema.NullOr(Schema.Number));
const Text = Schema.optional(Schema.NullOr(Schema.String));

/** codex's token counts (`TokenUsageBreakdown`, and a Responses step's `usage`). */
export const TokenCounts = Schema.Struct({
  totalTokens: Count,
  inputTokens: Count,
  cachedInputTokens: Count,
  outputTokens: Count,
  reasoningOutputTokens: Count,
});
export type TokenCounts = typeof TokenCounts.Type;

/** `TurnError`: what `error` and a failed `turn/completed` carry. */
const TurnError = Schema.Struct({
  message: Schema.optional(Schema.Unknown),
  codexErrorInfo: Schema.optional(Schema.Unknown),
  additionalDetails: Schema.optional(Schema.Unknown),
});

const TurnId = { turnId: Text };

/** A thread item: its type, and a web search's id, query and action (`webSearch` in `ThreadItem`). */
const Item = Schema.Struct({
  type: Schema.String,
  id: Text,
  query: Text,
  action: Schema.optional(Schema.NullOr(Schema.Record(Schema.String, Schema.Unknown))),
});

const note = <M extends string, P extends Schema.Struct.Fields>(method: M, params: P) =>
  Schema.Struct({ method: Schema.Literal(method), params: Schema.Struct(params) });

const MEMBERS = [
  note("item/agentMessage/delta", { ...TurnId, delta: Schema.String }),
  note("item/reasoning/summaryTextDelta", { ...TurnId, delta: Schema.String, summaryIndex: Count }),
  note("thread/tokenUsage/updated", {
    ...TurnId,
    tokenUsage: Schema.Struct({
      total: Schema.optional(Schema.NullOr(TokenCounts)),
      last: Schema.optional(Schema.NullOr(TokenCounts)),
    }),
  }),
  note("error", {
    ...TurnId,
    error: Schema.optional(Schema.NullOr(TurnError)),
    willRetry: Schema.optional(Schema.Boolean),
  }),
  note("turn/completed", {
    turn: Schema.Struct({
      id: Schema.String,
      status: Schema.String,
      error: Schema.optional(Schema.NullOr(TurnError)),
    }),
  }),
  note("item/started", { ...TurnId, item: Item }),
  /** Read for a hosted web search only (the other completed items are skipped unparsed). */
  note("item/completed", { ...TurnId, item: Item }),
  note("warning", { ...TurnId, message: Schema.optional(Schema.Unknown) }),
  /** Experimental raw events (native turns): every Responses item, and each model response's end. */
  note("rawResponseItem/completed", {
    ...TurnId,
    item: Schema.Struct({ type: Schema.String, call_id: Text, name: Text, arguments: Text }),
  }),
  note("rawResponse/completed", { ...TurnId, usage: Schema.optional(Schema.NullOr(TokenCounts)) }),
  /** The server request for a dynamic tool's result, seen by the turn as a notification. */
  note("item/tool/call", { ...TurnId, callId: Schema.String }),
] as const;

export const CodexNotification = Schema.Union(MEMBERS);
export type CodexNotification = typeof CodexNotification.Type | { readonly method: "other" };

const isObject = (u: unknown): u is Record<string, unknown> => typeof u === "object" && u !== null;
const optionalText = (u: unknown) => u === undefined || u === null || typeof u === "string";

/**
 * The text deltas are most of a turn's notifications; Schema's general checker costs about 1 µs
 * each, so these two members are checked by hand, and `test/notifications.test.ts` proves each hand
 * check accepts exactly what its member's schema accepts.
 */
export const FAST_CHECKS: ReadonlyMap<string, (params: unknown) => boolean> = new Map([
  [
    "item/agentMessage/delta",
    (p: unknown) => isObject(p) && typeof p.delta === "string" && optionalText(p.turnId),
  ],
  [
    "item/reasoning/summaryTextDelta",
    (p: unknown) =>
      isObject(p) &&
      typeof p.delta === "string" &&
      optionalText(p.turnId) &&
      (p.summaryIndex === undefined || p.summaryIndex === null || typeof p.summaryIndex === "number"),
  ],
]);

/** Each method's params schema and its check (the member's schema; no transformations, so checking is decoding). */
export const PARAMS: ReadonlyMap<string, Schema.Top> = new Map(
  MEMBERS.map((m) => [m.fields.method.literal, m.fields.params as Schema.Top]),
);
const CHECKS: ReadonlyMap<string, (params: unknown) => boolean> = new Map(
  MEMBERS.map((m) => [
    m.fields.method.literal,
    FAST_CHECKS.get(m.fields.method.literal) ?? Schema.is(m.fields.params),
  ]),
);
const explain: ReadonlyMap<string, (params: unknown) => Result.Result<unknown, unknown>> = new Map(
  MEMBERS.map((m): [string, (params: unknown) => Result.Result<unknown, unknown>] => [
    m.fields.method.literal,
    SchemaParser.decodeUnknownResult(m.fields.params),
  ]),
);
const OTHER: CodexNotification = { method: "other" };

/**
 * One notification as the gateway reads it. A known method with a malformed payload is reported
 * through `onInvalid` and read as `other`, so a codex that changes a shape degrades to "ignored",
 * never to a crash or a misread field.
 */
export const decodeCodexNotification = (
  method: string,
  params: unknown,
  onInvalid?: (method: string, issue: string) => void,
): CodexNotification => {
  const check = CHECKS.get(method);
  if (check === undefined) return OTHER;
  // Checked against the member's own params schema, so `{method, params}` is that member.
  if (check(params)) return { method, params } as CodexNotification;
  const result = explain.get(method)?.(params);
  onInvalid?.(method, result && Result.isFailure(result) ? String(result.failure) : "invalid");
  return OTHER;
};

/** The turn a notification belongs to, when it names one. */
export const turnIdOf = (n: CodexNotification): string | null | undefined =>
  n.method === "other" ? undefined : n.method === "turn/completed" ? n.params.turn.id : n.params.turnId;
