import { invalidRequest, type ToolPolicy, type TurnRequest } from "@proxy/core";
import { decodeJsonText, issueToGatewayError } from "@proxy/http-surface";
import * as Result from "effect/Result";
import * as SchemaParser from "effect/SchemaParser";
import { decodeChatTools } from "./decode-tools.js";
import { messagesToItems } from "./messages-to-items.js";
import { plainChatRequest } from "./plain-request.js";
import { ChatCompletionRequest } from "./request-schema.js";

/** Everything one Chat Completions request asks for, ready for `runTurn` and the encoders. */
export interface ChatTurnPlan {
  readonly request: TurnRequest;
  readonly tools: ToolPolicy;
  readonly stream: boolean;
  readonly includeUsage: boolean;
  /** The request used legacy `functions`: answer with `function_call` and `finish_reason:"function_call"`. */
  readonly legacyFunctions: boolean;
  /** Names of the custom (freeform) tools offered: their calls come back as `type:"custom"`. */
  readonly customTools: ReadonlySet<string>;
}

const decodeBody = SchemaParser.decodeUnknownResult(ChatCompletionRequest);

/** `stop`: one string or up to 4, as OpenAI takes it. */
const stopSequences = (stop: string | ReadonlyArray<string> | null | undefined) => {
  const list = stop == null ? [] : typeof stop === "string" ? [stop] : stop;
  if (list.length > 4) throw invalidRequest(`'stop' takes at most 4 sequences, got ${list.length}.`, "stop");
  return list.length === 0 ? undefined : list;
};

/** Decodes a raw request body; every failure is a GatewayError("invalid_request") naming its `param`. */
export const decodeChatRequest = (bodyText: string): ChatTurnPlan => decodeChatBody(decodeJsonText(bodyText));

const decodedBody = (json: unknown): ChatCompletionRequest => {
  const decoded = decodeBody(json);
  if (Result.isFailure(decoded)) throw issueToGatewayError(decoded.failure);
  return decoded.success;
};

/** Decodes a request body the kit has parsed and checked (`readJsonBody`). */
export const decodeChatBody = (json: unknown): ChatTurnPlan => {
  const body = plainChatRequest(json) ?? decodedBody(json);
  if (body.n != null && body.n !== 1) {
    throw invalidRequest(
      `n=${body.n} is not supported: this gateway returns exactly one choice.`,
      "n",
      "unsupported_value",
    );
  }
  const legacyFunctions = body.tools == null && body.functions != null;
  const policy = decodeChatTools({
    tools: body.tools,
    tool_choice: body.tool_choice,
    parallel_tool_calls: body.parallel_tool_calls,
    functions: body.functions,
    function_call: body.function_call,
  });
  const format = body.response_format;
  const schema = format?.type === "json_schema" ? (format.json_schema.schema ?? undefined) : undefined;
  const request: TurnRequest = {
    model: body.model,
    items: messagesToItems(body.messages),
    reasoningEffort: body.reasoning_effort ?? undefined,
    outputSchema: schema,
    // A json_schema format without a schema still asks for JSON.
    jsonObject:
      format?.type === "json_object" || (format?.type === "json_schema" && schema === undefined) || undefined,
    maxOutputTokens: body.max_completion_tokens ?? body.max_tokens ?? undefined,
    stopSequences: stopSequences(body.stop),
    ...(body.web_search_options == null
      ? {}
      : {
          hostedTools: {
            webSearch: {
              tool: "web_search_options",
              param: "web_search_options",
              contextSize: body.web_search_options.search_context_size ?? undefined,
            },
          },
        }),
  };
  return {
    request,
    tools: policy,
    stream: body.stream === true,
    includeUsage: body.stream === true && body.stream_options?.include_usage === true,
    legacyFunctions,
    customTools: new Set(policy.tools.flatMap((t) => (t.custom === true ? [t.name] : []))),
  };
};
