import { invalidRequest, type ReasoningEffort, type TurnRequest } from "@proxy/core";
import { issueToGatewayError } from "@proxy/http-surface";
import * as Result from "effect/Result";
import * as SchemaParser from "effect/SchemaParser";
import { compactFirstOf } from "./compact-edit.js";
import { decodeMessagesTools, type MessagesToolPolicy } from "./decode-tools.js";
import { decodeMessagesHostedTools } from "./hosted-tools.js";
import { messagesToItems } from "./messages-to-items.js";
import { CountTokensRequest, MessagesRequest } from "./request-schema.js";

/** Everything one Messages request asks for, ready for `runTurn` and the encoders. */
export interface MessagesTurnPlan {
  readonly request: TurnRequest;
  readonly tools: MessagesToolPolicy;
  readonly stream: boolean;
  /** `stop_sequences` as sent (the core enforces them; one sequence can be named in the reply). */
  readonly stopSequences: ReadonlyArray<string>;
  /** The answer may begin with a `compaction` block (and end there, `stop_reason: "compaction"`, when paused). */
  readonly compactFirst?: { readonly pause: boolean } | undefined;
  /** The client enabled thinking (`enabled` or `adaptive`): only then is reasoning sent as thinking blocks. */
  readonly thinking: boolean;
}

const decodeBody = SchemaParser.decodeUnknownResult(MessagesRequest);
const decodeCountBody = SchemaParser.decodeUnknownResult(CountTokensRequest);

const EFFORTS: Readonly<Record<string, ReasoningEffort>> = {
  low: "low",
  medium: "medium",
  high: "high",
  max: "xhigh",
};

/**
 * `output_config.effort` when given (Claude Code's newer models), else the thinking budget in three
 * bands; `adaptive` and `disabled` leave the backend's default.
 */
const reasoningEffort = (body: typeof CountTokensRequest.Type): ReasoningEffort | undefined => {
  const effort = body.output_config?.effort;
  if (effort !== undefined && EFFORTS[effort] !== undefined) return EFFORTS[effort];
  const thinking = body.thinking;
  if (thinking?.type !== "enabled") return undefined;
  const budget = thinking.budget_tokens ?? 0;
  return budget < 4096 ? "low" : budget < 16384 ? "medium" : "high";
};

/** `system` (a string or text blocks), then the text of `role:"system"` messages, as one prompt. */
const instructionsOf = (
  system: typeof CountTokensRequest.Type.system,
  systemTexts: ReadonlyArray<string>,
): string | undefined => {
  const head = system === undefined ? [] : typeof system === "string" ? [system] : system.map((b) => b.text);
  const text = [...head, ...systemTexts].filter((t) => t !== "").join("\n\n");
  return text === "" ? undefined : text;
};

const toPlanParts = (body: typeof CountTokensRequest.Type) => {
  const { items, referencedTools, systemTexts } = messagesToItems(body.messages);
  const tools = decodeMessagesTools(body.tools, body.tool_choice, referencedTools);
  const hostedTools = decodeMessagesHostedTools(body.tools);
  const request: TurnRequest = {
    model: body.model,
    instructions: instructionsOf(body.system, systemTexts),
    items,
    reasoningEffort: reasoningEffort(body),
    ...(hostedTools.webSearch ? { hostedTools } : {}),
  };
  return { request, tools };
};

/**
 * Bounds on `stop_sequences` (Anthropic documents none we could verify; these are the gateway's):
 * the matcher is linear in the text whatever their number, but its automaton grows with their
 * total length, and every turn builds one.
 */
export const MAX_STOP_SEQUENCES = 256;
export const MAX_STOP_SEQUENCE_CHARS = 1024;

const checkStopSequences = (stops: ReadonlyArray<string> | undefined): void => {
  if (stops === undefined) return;
  if (stops.length > MAX_STOP_SEQUENCES)
    throw invalidRequest(
      `Invalid value for 'stop_sequences': at most ${MAX_STOP_SEQUENCES} stop sequences are allowed, got ${stops.length}.`,
      "stop_sequences",
    );
  const long = stops.findIndex((s) => s.length > MAX_STOP_SEQUENCE_CHARS);
  if (long >= 0)
    throw invalidRequest(
      `Invalid value for 'stop_sequences[${long}]': a stop sequence may be at most ${MAX_STOP_SEQUENCE_CHARS} characters long.`,
      `stop_sequences[${long}]`,
    );
};

/** Decodes a `/v1/messages` JSON body; every failure is a GatewayError("invalid_request") naming the field. */
export const decodeMessagesRequest = (json: unknown): MessagesTurnPlan => {
  const decoded = decodeBody(json);
  if (Result.isFailure(decoded)) throw issueToGatewayError(decoded.failure);
  const body = decoded.success;
  checkStopSequences(body.stop_sequences);
  if (body.messages.length === 0)
    throw invalidRequest("Invalid value for 'messages': at least one message is required.", "messages");
  const compactFirst = compactFirstOf(body);
  const { request, tools } = toPlanParts(body);
  return {
    request: {
      ...request,
      maxOutputTokens: body.max_tokens,
      stopSequences: body.stop_sequences,
      compactFirst,
    },
    tools,
    stream: body.stream === true,
    stopSequences: body.stop_sequences ?? [],
    ...(compactFirst === undefined ? {} : { compactFirst: { pause: compactFirst.pause } }),
    thinking: body.thinking !== undefined && body.thinking.type !== "disabled",
  };
};

/** Decodes a `/v1/messages/count_tokens` body into the same canonical request and policy. */
export const decodeCountTokensRequest = (
  json: unknown,
): Omit<MessagesTurnPlan, "stream" | "stopSequences" | "thinking"> => {
  const decoded = decodeCountBody(json);
  if (Result.isFailure(decoded)) throw issueToGatewayError(decoded.failure);
  return toPlanParts(decoded.success);
};
