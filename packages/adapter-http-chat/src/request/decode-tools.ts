import { findToolPolicyProblem, invalidRequest, type ToolPolicy } from "@proxy/core";
import { issueToGatewayError } from "@proxy/http-surface";
import {
  customDefinitionAt,
  type DecodedTool,
  decodeOpenAiToolChoice,
  functionDefinitionAt,
  functionToolAt,
  type OpenAiToolChoice,
  openAiToolPolicyError,
  parallelToolCallsOf,
  toolEntryAt,
} from "@proxy/http-surface/openai-wire";
import * as Result from "effect/Result";
import * as Schema from "effect/Schema";
import * as SchemaParser from "effect/SchemaParser";

/** The tool fields of a Chat Completions body, still raw. */
export interface ChatToolFields {
  readonly tools?: unknown;
  readonly tool_choice?: unknown;
  readonly parallel_tool_calls?: unknown;
  /** Legacy `functions` / `function_call`. */
  readonly functions?: unknown;
  readonly function_call?: unknown;
}

const decodeLegacyCall = SchemaParser.decodeUnknownResult(
  Schema.Union([Schema.Literals(["auto", "none"]), Schema.Struct({ name: Schema.String })]),
);

const listAt = (value: unknown, param: string): ReadonlyArray<unknown> => {
  if (value === undefined || value === null) return [];
  if (!Array.isArray(value)) throw invalidRequest(`Invalid type for '${param}': expected an array.`, param);
  return value;
};

/**
 * `tools` entries: `{type:"function", function:{…}}` (the flat Responses shape too), `{type:"custom",
 * custom:{name, description?, format?}}`, namespaces of those; other types are accepted and not offered.
 */
const decodeTools = (list: unknown, base: string, out: DecodedTool[]): void => {
  listAt(list, base).forEach((item, i) => {
    const at = `${base}[${i}]`;
    const { type, fields } = toolEntryAt(item, at);
    if (type === "function") out.push(functionToolAt(fields, at));
    else if (type === "custom") out.push(customDefinitionAt(fields.custom, `${at}.custom`));
    else if (type === "namespace") decodeTools(fields.tools, `${at}.tools`, out);
  });
};

const decodeChoice = (fields: ChatToolFields): OpenAiToolChoice => {
  if (fields.tool_choice !== undefined && fields.tool_choice !== null)
    return decodeOpenAiToolChoice(fields.tool_choice);
  if (fields.function_call === undefined || fields.function_call === null)
    return { choice: { type: "auto" }, allowed: undefined };
  const legacy = decodeLegacyCall(fields.function_call);
  if (Result.isFailure(legacy)) throw issueToGatewayError(legacy.failure, "function_call");
  const call = legacy.success;
  return {
    choice: typeof call === "string" ? { type: call } : { type: "tool", name: call.name },
    allowed: undefined,
  };
};

/**
 * Chat's tool fields → core's canonical policy; errors name the path in the Chat request
 * (`tools[2].function.name`, `functions[0].name`, `function_call`).
 */
export const decodeChatTools = (fields: ChatToolFields): ToolPolicy => {
  const decoded: DecodedTool[] = [];
  decodeTools(fields.tools, "tools", decoded);
  listAt(fields.functions, "functions").forEach((f, i) => {
    decoded.push(functionDefinitionAt(f, `functions[${i}]`));
  });
  const { choice, allowed } = decodeChoice(fields);
  const tools = decoded.map((d) => d.spec);
  const problem = findToolPolicyProblem({ tools, choice, parallel: true, allowed });
  if (problem !== undefined)
    throw openAiToolPolicyError(
      problem,
      decoded,
      fields.tool_choice === undefined ? "function_call" : "tool_choice",
    );
  const parallel = parallelToolCallsOf(fields.parallel_tool_calls);
  // A legacy `function_call` answer holds exactly one call.
  const legacy = (fields.tools === undefined || fields.tools === null) && fields.functions != null;
  return {
    tools,
    choice,
    parallel: !legacy && parallel !== false,
    parallelDefaulted: !legacy && parallel === undefined,
    allowed,
  };
};
