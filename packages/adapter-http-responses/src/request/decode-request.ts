import type { ToolPolicy, TurnRequest } from "@proxy/core";
import { invalidRequest } from "@proxy/core";
import { issueToGatewayError } from "@proxy/http-surface";
import * as Result from "effect/Result";
import * as SchemaParser from "effect/SchemaParser";
import { decodeInput, type ItemResolver } from "./decode-input.js";
import { decodeResponsesTools } from "./decode-tools.js";
import { decodeResponsesHostedTools } from "./hosted-tools.js";
import type { Input, InputItem } from "./input-schema.js";
import { mapInput } from "./map-input.js";
import { ResponsesRequest, type TextFormat } from "./request-schema.js";

/**
 * What the turn must produce: ordinary output, or (codex remote compaction v2) exactly one
 * `compaction` item holding a summary of the input.
 */
export type TurnPurpose = "answer" | "compaction";

export interface ParsedResponsesRequest {
  /** The decoded body, echoed in the Response object. */
  readonly body: ResponsesRequest;
  readonly turn: TurnRequest;
  readonly tools: ToolPolicy;
  /** Tool name → namespace for tools exposed from `namespace` tools (set on function_call items). */
  readonly namespaces: ReadonlyMap<string, string>;
  /** Names of the custom (freeform) tools offered: their calls go out as `custom_tool_call` items. */
  readonly customTools: ReadonlySet<string>;
  readonly stream: boolean;
  readonly purpose: TurnPurpose;
}

/** codex's inline compaction request: `tools: []` plus this phrase in the last user message. */
const CODEX_COMPACTION_MARKER = "CONTEXT CHECKPOINT COMPACTION";

const decodeBody = SchemaParser.decodeUnknownResult(ResponsesRequest);

const NO_TOOLS: ToolPolicy = { tools: [], choice: { type: "none" }, parallel: false };

const outputFormat = (
  format: TextFormat | null | undefined,
): Pick<TurnRequest, "outputSchema" | "jsonObject"> => {
  if (format?.type === "json_schema") return { outputSchema: format.schema };
  if (format?.type === "json_object") return { jsonObject: true };
  return {};
};

const asItems = (input: Input): ReadonlyArray<InputItem> =>
  typeof input === "string" ? [{ role: "user", content: input }] : input;

/** Without a store, the fields that need server state are refused (param named, no backend turn). */
const rejectStatefulFields = (body: ResponsesRequest): void => {
  if (body.previous_response_id !== undefined && body.previous_response_id !== null)
    throw invalidRequest(
      `Previous response with id '${body.previous_response_id}' not found: this gateway does not store responses; send the full conversation in 'input' instead.`,
      "previous_response_id",
      "previous_response_not_found",
    );
  if (body.conversation !== undefined && body.conversation !== null)
    throw invalidRequest(
      "'conversation' is not supported: this gateway does not store conversations.",
      "conversation",
      "unsupported_parameter",
    );
  if (body.background === true)
    throw invalidRequest(
      "'background' mode is not supported: use stream:true instead.",
      "background",
      "unsupported_parameter",
    );
};

/** Decodes and checks a `POST /v1/responses` body; throws GatewayError("invalid_request") naming `param`. */
export const decodeResponsesRequest = (
  json: unknown,
  resolve?: ItemResolver,
  /** With a store: earlier items (chain or conversation) to put before `input`. */
  stored?: { readonly history: ReadonlyArray<unknown> },
): ParsedResponsesRequest => {
  const decoded = decodeBody(json);
  if (Result.isFailure(decoded)) throw issueToGatewayError(decoded.failure);
  const body = decoded.success;

  if (stored === undefined) rejectStatefulFields(body);
  const own = body.input === undefined ? undefined : decodeInput(body.input, resolve);
  const history = stored === undefined ? [] : decodeInput(stored.history, resolve, "previous_response");
  const input = mapInput(
    own === undefined || history.length === 0 ? own : [...asItems(history), ...asItems(own)],
  );
  const purpose: TurnPurpose = input.compactionTrigger ? "compaction" : "answer";
  const codexCompaction =
    Array.isArray(body.tools) &&
    body.tools.length === 0 &&
    input.lastUserText.includes(CODEX_COMPACTION_MARKER);

  const turn: TurnRequest = {
    model: body.model,
    instructions: body.instructions ?? undefined,
    items: input.items,
    reasoningEffort: body.reasoning?.effort ?? undefined,
    reasoningSummary: body.reasoning?.summary ?? undefined,
    maxOutputTokens: body.max_output_tokens ?? undefined,
    ...outputFormat(body.text?.format),
  };
  const hostedTools = decodeResponsesHostedTools(body.tools);

  // Compaction answers must be text: a tool call there makes codex loop.
  if (purpose === "compaction" || codexCompaction)
    return {
      body,
      turn,
      tools: NO_TOOLS,
      namespaces: new Map(),
      customTools: new Set(),
      stream: body.stream === true,
      purpose,
    };

  const { policy, namespaces } = decodeResponsesTools(body, input.additionalTools);
  const tools: ToolPolicy =
    body.max_tool_calls === undefined || body.max_tool_calls === null
      ? policy
      : { ...policy, maxCalls: body.max_tool_calls };
  return {
    body,
    turn: hostedTools.webSearch ? { ...turn, hostedTools } : turn,
    tools,
    namespaces,
    customTools: new Set(policy.tools.flatMap((t) => (t.custom === true ? [t.name] : []))),
    stream: body.stream === true,
    purpose,
  };
};
