import { Result, Schema, SchemaParser } from "effect";
import { invalidRequest } from "../errors/gateway-error.js";
import { issueToGatewayError } from "../errors/schema-issue.js";
import { offeredTools } from "./tool-policy.js";
import { TOOL_NAME_PATTERN, type ToolChoice, type ToolPolicy, type ToolSpec } from "./tool-spec.js";

const FunctionDefinition = Schema.Struct({
  name: Schema.String.check(Schema.isPattern(TOOL_NAME_PATTERN)),
  description: Schema.optional(Schema.NullOr(Schema.String)),
  parameters: Schema.optional(Schema.NullOr(Schema.Record(Schema.String, Schema.Unknown))),
  strict: Schema.optional(Schema.NullOr(Schema.Boolean)),
});
const decodeFunction = SchemaParser.decodeUnknownResult(FunctionDefinition);

const ToolItem = Schema.Struct({ type: Schema.String });
const decodeToolItem = SchemaParser.decodeUnknownResult(ToolItem);

const StringChoice = Schema.Literals(["auto", "none", "required"]);
const ChoiceObject = Schema.Struct({
  type: Schema.String,
  name: Schema.optional(Schema.String),
  function: Schema.optional(Schema.Struct({ name: Schema.String })),
  mode: Schema.optional(Schema.Literals(["auto", "required"])),
});
const decodeChoice = SchemaParser.decodeUnknownResult(Schema.Union([StringChoice, ChoiceObject]));
const decodeLegacyCall = SchemaParser.decodeUnknownResult(
  Schema.Union([Schema.Literals(["auto", "none"]), Schema.Struct({ name: Schema.String })]),
);

export interface ToolPolicyInput {
  readonly tools?: unknown;
  readonly tool_choice?: unknown;
  readonly parallel_tool_calls?: unknown;
  /** Legacy Chat `functions` / `function_call`. */
  readonly functions?: unknown;
  readonly function_call?: unknown;
  /**
   * Where each entry of `tools` sits in the client's request (e.g. `input[0].tools[2]`) when the
   * surface gathered them from several places; errors name these paths. Default `tools[i]`.
   */
  readonly toolPaths?: ReadonlyArray<string> | undefined;
}

export interface DecodedToolPolicy extends ToolPolicy {
  /** Tool types accepted but not offered to the model (web_search, custom, …), for docs/telemetry. */
  readonly ignoredToolTypes: ReadonlyArray<string>;
}

const toSpec = (raw: typeof FunctionDefinition.Type): ToolSpec => ({
  name: raw.name,
  description: raw.description ?? undefined,
  parameters: raw.parameters ?? undefined,
  strict: raw.strict === true,
});

const decodeFunctionAt = (value: unknown, param: string): ToolSpec => {
  const r = decodeFunction(value);
  if (Result.isFailure(r)) throw issueToGatewayError(r.failure, param);
  return toSpec(r.success);
};

/** Decode tools in both wire shapes (Chat `{type, function}` and flat Responses), namespaces included, rejecting bad and duplicate names. */
const decodeTools = (
  tools: unknown,
  functions: unknown,
  ignored: string[],
  toolPaths: ReadonlyArray<string> | undefined,
): ToolSpec[] => {
  const specs: Array<{ spec: ToolSpec; param: string }> = [];
  const visit = (list: unknown, base: string) => {
    if (list === undefined || list === null) return;
    if (!Array.isArray(list)) throw invalidRequest(`Invalid type for '${base}': expected an array.`, base);
    list.forEach((item: unknown, i) => {
      const at = (base === "tools" ? toolPaths?.[i] : undefined) ?? `${base}[${i}]`;
      const head = decodeToolItem(item);
      if (Result.isFailure(head)) throw issueToGatewayError(head.failure, at);
      const obj = item as Record<string, unknown>;
      if (head.success.type === "function") {
        const nested = obj.function !== undefined;
        const param = nested ? `${at}.function` : at;
        specs.push({ spec: decodeFunctionAt(nested ? obj.function : obj, param), param: `${param}.name` });
      } else if (head.success.type === "namespace") {
        visit(obj.tools, `${at}.tools`);
      } else {
        ignored.push(head.success.type);
      }
    });
  };
  visit(tools, "tools");
  if (functions !== undefined && functions !== null) {
    if (!Array.isArray(functions))
      throw invalidRequest("Invalid type for 'functions': expected an array.", "functions");
    functions.forEach((f: unknown, i) => {
      specs.push({ spec: decodeFunctionAt(f, `functions[${i}]`), param: `functions[${i}].name` });
    });
  }
  const seen = new Set<string>();
  for (const { spec, param } of specs) {
    if (seen.has(spec.name)) throw invalidRequest(`Duplicate tool name '${spec.name}' in '${param}'.`, param);
    seen.add(spec.name);
  }
  return specs.map((s) => s.spec);
};

const decodeToolChoice = (input: ToolPolicyInput): ToolChoice => {
  if (input.tool_choice === undefined || input.tool_choice === null) {
    if (input.function_call === undefined || input.function_call === null) return { type: "auto" };
    const legacy = decodeLegacyCall(input.function_call);
    if (Result.isFailure(legacy)) throw issueToGatewayError(legacy.failure, "function_call");
    return typeof legacy.success === "string"
      ? { type: legacy.success }
      : { type: "tool", name: legacy.success.name };
  }
  const r = decodeChoice(input.tool_choice);
  if (Result.isFailure(r)) throw issueToGatewayError(r.failure, "tool_choice");
  const choice = r.success;
  if (typeof choice === "string") return { type: choice };
  if (choice.type === "allowed_tools") return { type: choice.mode ?? "auto" };
  const name = choice.function?.name ?? choice.name;
  if (choice.type === "function" && name !== undefined) return { type: "tool", name };
  if (choice.type === "auto" || choice.type === "none" || choice.type === "required")
    return { type: choice.type };
  throw invalidRequest(`Unsupported 'tool_choice' of type '${choice.type}'.`, "tool_choice");
};

const isRecord = (u: unknown): u is Record<string, unknown> =>
  typeof u === "object" && u !== null && !Array.isArray(u);

/** `allowed_tools`' list (`{type:"function", name}` or `{type:"function", function:{name}}`); empty = no limit. */
const allowedNames = (choice: unknown): ReadonlyArray<string> | undefined => {
  if (!isRecord(choice) || choice.type !== "allowed_tools" || !Array.isArray(choice.tools)) return undefined;
  const names = choice.tools.flatMap((t: unknown) => {
    const name = isRecord(t) ? (t.name ?? (isRecord(t.function) ? t.function.name : undefined)) : undefined;
    return typeof name === "string" ? [name] : [];
  });
  return names.length > 0 ? names : undefined;
};

/**
 * Decodes the tool-related request fields of either API into one canonical policy. Throws a
 * GatewayError("invalid_request") whose `param` names the offending path.
 */
export const decodeToolPolicy = (input: ToolPolicyInput): DecodedToolPolicy => {
  const ignoredToolTypes: string[] = [];
  const tools = decodeTools(input.tools, input.functions, ignoredToolTypes, input.toolPaths);
  const choice = decodeToolChoice(input);
  const allowed = allowedNames(input.tool_choice);
  const offered = offeredTools({ tools, choice, parallel: true, allowed });
  if (choice.type === "tool" && !offered.some((t) => t.name === choice.name)) {
    const param = input.tool_choice === undefined ? "function_call" : "tool_choice";
    throw invalidRequest(`Tool choice '${choice.name}' is not one of the provided tools.`, param);
  }
  if (choice.type === "required" && offered.length === 0) {
    throw invalidRequest("'tool_choice' is 'required' but no tools were provided.", "tool_choice");
  }
  const parallel = input.parallel_tool_calls;
  if (parallel !== undefined && parallel !== null && typeof parallel !== "boolean") {
    throw invalidRequest(
      "Invalid type for 'parallel_tool_calls': expected a boolean.",
      "parallel_tool_calls",
    );
  }
  // A legacy `function_call` answer holds exactly one call.
  const legacy = (input.tools === undefined || input.tools === null) && input.functions != null;
  return { tools, choice, parallel: !legacy && parallel !== false, allowed, ignoredToolTypes };
};
