import {
  type GatewayError,
  invalidRequest,
  TOOL_NAME_PATTERN,
  type ToolChoice,
  type ToolPolicyProblem,
  type ToolSpec,
} from "@proxy/core";
import * as Result from "effect/Result";
import * as Schema from "effect/Schema";
import * as SchemaParser from "effect/SchemaParser";
import { issueToGatewayError } from "../request/schema-issue.js";

/**
 * The tool shapes both OpenAI APIs share (Chat nests a function under `function`, Responses writes
 * it flat; each API takes both), decoded into core's canonical `ToolSpec`. What only one API has
 * (legacy `functions`, namespaces, hosted tools) stays with that surface's decoder.
 */

/** A decoded tool and where its name sat in the request (duplicate-name errors point there). */
export interface DecodedTool {
  readonly spec: ToolSpec;
  readonly nameParam: string;
}

const ToolName = Schema.String.check(Schema.isPattern(TOOL_NAME_PATTERN));
const OptionalText = Schema.optional(Schema.NullOr(Schema.String));

const FunctionDefinition = Schema.Struct({
  name: ToolName,
  description: OptionalText,
  parameters: Schema.optional(Schema.NullOr(Schema.Record(Schema.String, Schema.Unknown))),
  strict: Schema.optional(Schema.NullOr(Schema.Boolean)),
});
const decodeFunction = SchemaParser.decodeUnknownResult(FunctionDefinition);

const GrammarSyntax = Schema.Literals(["lark", "regex"]);
const Grammar = Schema.Struct({ syntax: GrammarSyntax, definition: Schema.String });
/** `format`: free text, or a grammar (Responses writes it flat, Chat under `grammar`). */
const CustomFormat = Schema.Union([
  Schema.Struct({ type: Schema.Literal("text") }),
  Schema.Struct({
    type: Schema.Literal("grammar"),
    syntax: Schema.optional(GrammarSyntax),
    definition: Schema.optional(Schema.String),
    grammar: Schema.optional(Grammar),
  }),
]);
const CustomDefinition = Schema.Struct({
  name: ToolName,
  description: OptionalText,
  format: Schema.optional(Schema.NullOr(CustomFormat)),
});
const decodeCustom = SchemaParser.decodeUnknownResult(CustomDefinition);

const ToolEntry = Schema.Struct({ type: Schema.String });
const decodeToolEntry = SchemaParser.decodeUnknownResult(ToolEntry);

const isRecord = (u: unknown): u is Record<string, unknown> =>
  typeof u === "object" && u !== null && !Array.isArray(u);

/** One entry of `tools`: an object with a string `type`, else an error naming `at`. */
export const toolEntryAt = (item: unknown, at: string): { type: string; fields: Record<string, unknown> } => {
  const head = decodeToolEntry(item);
  if (Result.isFailure(head)) throw issueToGatewayError(head.failure, at);
  return { type: head.success.type, fields: item as Record<string, unknown> };
};

/** A function definition (`functions[i]`, or the body of a function tool) at `param`. */
export const functionDefinitionAt = (value: unknown, param: string): DecodedTool => {
  // `false` is a JSON Schema, one no arguments satisfy: the function could never be called.
  if (isRecord(value) && value.parameters === false) {
    const name = typeof value.name === "string" ? value.name : "";
    throw invalidRequest(
      `Invalid schema for function '${name}': the schema \`false\` accepts no arguments, so the function could never be called.`,
      `${param}.parameters`,
      "invalid_function_parameters",
    );
  }
  const r = decodeFunction(value);
  if (Result.isFailure(r)) throw issueToGatewayError(r.failure, param);
  const f = r.success;
  return {
    spec: {
      name: f.name,
      description: f.description ?? undefined,
      parameters: f.parameters ?? undefined,
      strict: f.strict === true,
    },
    nameParam: `${param}.name`,
  };
};

/** A `type:"function"` tool in either shape: `{function:{name,…}}` (Chat) or flat (Responses). */
export const functionToolAt = (fields: Record<string, unknown>, at: string): DecodedTool =>
  fields.function !== undefined
    ? functionDefinitionAt(fields.function, `${at}.function`)
    : functionDefinitionAt(fields, at);

/** A custom (freeform) tool's definition at `param`: `{name, description?, format?}`. */
export const customDefinitionAt = (value: unknown, param: string): DecodedTool => {
  const r = decodeCustom(value);
  if (Result.isFailure(r)) throw issueToGatewayError(r.failure, param);
  const { name, description, format } = r.success;
  let grammar: ToolSpec["grammar"];
  if (format?.type === "grammar") {
    const syntax = format.grammar?.syntax ?? format.syntax;
    const definition = format.grammar?.definition ?? format.definition;
    if (syntax === undefined || definition === undefined)
      throw invalidRequest(
        `Missing required parameter: '${param}.format.${syntax === undefined ? "syntax" : "definition"}'.`,
        `${param}.format.${syntax === undefined ? "syntax" : "definition"}`,
      );
    grammar = { syntax, definition };
  }
  return {
    spec: { name, description: description ?? undefined, strict: false, custom: true, grammar },
    nameParam: `${param}.name`,
  };
};

const ChoiceObject = Schema.Struct({
  type: Schema.String,
  name: Schema.optional(Schema.String),
  function: Schema.optional(Schema.Struct({ name: Schema.String })),
  custom: Schema.optional(Schema.Struct({ name: Schema.String })),
  mode: Schema.optional(Schema.Literals(["auto", "required"])),
});
const decodeChoice = SchemaParser.decodeUnknownResult(
  Schema.Union([Schema.Literals(["auto", "none", "required"]), ChoiceObject]),
);

/** `allowed_tools`' list (`{type, name}` or `{type, function:{name}}`); empty = no limit. */
const allowedNames = (choice: unknown): ReadonlyArray<string> | undefined => {
  if (!isRecord(choice) || choice.type !== "allowed_tools" || !Array.isArray(choice.tools)) return undefined;
  const names = choice.tools.flatMap((t: unknown) => {
    const name = isRecord(t)
      ? (t.name ??
        (isRecord(t.function) ? t.function.name : undefined) ??
        (isRecord(t.custom) ? t.custom.name : undefined))
      : undefined;
    return typeof name === "string" ? [name] : [];
  });
  return names.length > 0 ? names : undefined;
};

export interface OpenAiToolChoice {
  readonly choice: ToolChoice;
  /** `allowed_tools`: only these tools are offered (undefined = all of them). */
  readonly allowed: ReadonlyArray<string> | undefined;
}

/**
 * `tool_choice` in every OpenAI spelling: a string, `{type:"function", name}` or
 * `{type:"function", function:{name}}`, `{type:"custom", name}` or `{type:"custom", custom:{name}}`,
 * `allowed_tools` (its `mode`, and its list as `allowed`). Types in `degradeToAuto` (hosted tools
 * this gateway does not run) mean `auto`.
 */
export const decodeOpenAiToolChoice = (
  raw: unknown,
  degradeToAuto: ReadonlySet<string> = new Set(),
): OpenAiToolChoice => {
  if (isRecord(raw) && typeof raw.type === "string" && degradeToAuto.has(raw.type))
    return { choice: { type: "auto" }, allowed: undefined };
  const r = decodeChoice(raw);
  if (Result.isFailure(r)) throw issueToGatewayError(r.failure, "tool_choice");
  const c = r.success;
  if (typeof c === "string") return { choice: { type: c }, allowed: undefined };
  if (c.type === "allowed_tools") return { choice: { type: c.mode ?? "auto" }, allowed: allowedNames(raw) };
  const name = c.type === "custom" ? (c.custom?.name ?? c.name) : (c.function?.name ?? c.name);
  if ((c.type === "function" || c.type === "custom") && name !== undefined)
    return { choice: { type: "tool", name }, allowed: undefined };
  if (c.type === "auto" || c.type === "none" || c.type === "required")
    return { choice: { type: c.type }, allowed: undefined };
  throw invalidRequest(`Unsupported 'tool_choice' of type '${c.type}'.`, "tool_choice");
};

/** `parallel_tool_calls`: a boolean or absent. */
export const parallelToolCallsOf = (raw: unknown): boolean | undefined => {
  if (raw === undefined || raw === null) return undefined;
  if (typeof raw !== "boolean")
    throw invalidRequest(
      "Invalid type for 'parallel_tool_calls': expected a boolean.",
      "parallel_tool_calls",
    );
  return raw;
};

/** Core's canonical policy problem in OpenAI's words; `choiceParam` is where the choice was given. */
export const openAiToolPolicyError = (
  problem: ToolPolicyProblem,
  tools: ReadonlyArray<DecodedTool>,
  choiceParam: string,
): GatewayError => {
  switch (problem.kind) {
    case "invalid-name":
    case "duplicate-name": {
      const param = tools[problem.index]?.nameParam ?? "tools";
      return problem.kind === "duplicate-name"
        ? invalidRequest(`Duplicate tool name '${problem.name}' in '${param}'.`, param)
        : invalidRequest(
            `Invalid value for '${param}': tool names must match ${TOOL_NAME_PATTERN.source}.`,
            param,
          );
    }
    case "forced-tool-not-offered":
      return invalidRequest(`Tool choice '${problem.name}' is not one of the provided tools.`, choiceParam);
    case "required-without-tools":
      return invalidRequest("'tool_choice' is 'required' but no tools were provided.", "tool_choice");
  }
};
