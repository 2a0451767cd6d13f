import { Result, Schema, SchemaParser } from "effect";

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
  note("item/started", { ...TurnId, item: Schema.Struct({ type: Schema.String }) }),
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

const KNOWN: ReadonlySet<string> = new Set(MEMBERS.map((m) => m.fields.method.literal));
const decode = SchemaParser.decodeUnknownResult(CodexNotification);
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
  if (!KNOWN.has(method)) return OTHER;
  const result = decode({ method, params });
  if (Result.isSuccess(result)) return result.success;
  onInvalid?.(method, String(result.failure));
  return OTHER;
};

/** The turn a notification belongs to, when it names one. */
export const turnIdOf = (n: CodexNotification): string | null | undefined =>
  n.method === "other" ? undefined : n.method === "turn/completed" ? n.params.turn.id : n.params.turnId;
