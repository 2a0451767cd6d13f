import {
  type BackendRequest,
  BLOCK_FORMATS,
  type BlockFormat,
  callableTools,
  createArgumentsValidator,
  findToolPolicyProblem,
  GatewayError,
  type IdGenerator,
  mustCall,
  offeredTools,
  renderBackendRequest,
  type SchemaCache,
  type ToolArgumentsValidator,
  type ToolChoice,
  type ToolPolicy,
  type ToolPolicyProblem,
  type ToolSpec,
} from "@proxy/core";
import type { TurnSettings } from "@proxy/core/gateway";
import { formatOf, type ToolCallingOptions } from "./options.js";
import { conversationOf, PartTable, promptOf } from "./prompt.js";
import type { CallOptions, FunctionTool, SdkToolChoice, Warning } from "./sdk-types.js";

/** What one model call under the middleware needs, worked out once from the caller's params. */
export interface StepPlan {
  readonly policy: ToolPolicy;
  readonly settings: TurnSettings;
  readonly ids: IdGenerator;
  /** The tools a call may name (the forced one alone under a named toolChoice). */
  readonly callable: ReadonlyMap<string, ToolSpec>;
  readonly validator: ToolArgumentsValidator | undefined;
  readonly formats: ReadonlyArray<BlockFormat>;
  /** Core's rendering of the step: the corrective re-ask extends it. */
  readonly request: BackendRequest;
  readonly warnings: ReadonlyArray<Warning>;
  /** The caller's params with the prompt rendered as text and the tools taken out. */
  callOptions(request: BackendRequest): CallOptions;
}

export interface PlanContext {
  readonly options: ToolCallingOptions;
  readonly settings: TurnSettings;
  readonly ids: IdGenerator;
  readonly schemas: SchemaCache;
}

const choiceOf = (choice: SdkToolChoice | undefined): ToolChoice => {
  if (choice === undefined || choice.type === "auto") return { type: "auto" };
  if (choice.type === "tool") return { type: "tool", name: choice.toolName };
  return { type: choice.type };
};

const specOf = (tool: FunctionTool, strict: boolean | undefined): ToolSpec => ({
  name: tool.name,
  description: tool.description,
  parameters: tool.inputSchema as ToolSpec["parameters"],
  strict: strict ?? tool.strict === true,
});

/** The prompt carries earlier calls or results: a text-only model needs them rendered even without tools. */
const hasToolHistory = (params: CallOptions): boolean =>
  params.prompt.some(
    (m) =>
      m.role === "tool" ||
      (m.role === "assistant" && m.content.some((p) => p.type === "tool-call" || p.type === "tool-result")),
  );

/**
 * The plan for one call, or undefined when the middleware has nothing to do (no function tools
 * and no tool history): the call then goes to the model untouched.
 */
export const planStep = (params: CallOptions, ctx: PlanContext): StepPlan | undefined => {
  const sdkTools = params.tools ?? [];
  const functions = sdkTools.filter((t): t is FunctionTool => t.type === "function");
  if (functions.length === 0 && !hasToolHistory(params)) return undefined;
  const warnings: Warning[] = sdkTools
    .filter((t) => t.type !== "function")
    .map((t) => ({
      type: "unsupported",
      feature: `provider-defined tool ${t.name}`,
      details: "a text-only model is taught function tools only",
    }));
  const { options } = ctx;
  const policy: ToolPolicy = {
    tools: functions.map((t) => specOf(t, options.strict)),
    choice: choiceOf(params.toolChoice),
    parallel: options.parallelToolCalls ?? true,
    maxCalls: options.maxToolCalls,
  };
  const problem = findToolPolicyProblem(policy);
  if (problem !== undefined) throw policyError(problem);
  const format = formatOf(options);
  const offered = offeredTools(policy);
  const validator = offered.length > 0 ? createArgumentsValidator(offered, ctx.schemas) : undefined;
  // A strict tool whose schema cannot be compiled could never be enforced: refuse, as runTurn does.
  const uncheckable = offered.find((t) => t.strict && validator?.schemaError(t.name) !== undefined);
  if (uncheckable !== undefined)
    throw new GatewayError(
      "invalid_request",
      `Invalid schema for strict tool '${uncheckable.name}': ${validator?.schemaError(uncheckable.name)}.`,
      { param: "tools", code: "invalid_function_parameters" },
    );
  const table = new PartTable();
  const turn = { model: "", items: conversationOf(params.prompt, table) };
  const { request } = renderBackendRequest(turn, policy, format, options.instructions ?? "");
  const { tools: _tools, toolChoice: _choice, ...rest } = params;
  // Only a strict tool or a call the choice demands can break a rule; otherwise no re-ask can come,
  // and neither the reply nor the text sent is kept for one (a long answer then costs no memory).
  const canBreakRules = mustCall(policy) || offered.some((t) => t.strict);
  return {
    policy,
    settings: canBreakRules ? ctx.settings : { ...ctx.settings, correctiveRetries: 0 },
    ids: ctx.ids,
    callable: new Map(callableTools(policy).map((t) => [t.name, t])),
    validator,
    formats: BLOCK_FORMATS.includes(format) ? BLOCK_FORMATS : [format, ...BLOCK_FORMATS],
    request,
    warnings,
    callOptions: (next) => ({ ...rest, prompt: promptOf(next, table) }),
  };
};

/** A tool set core cannot teach, named in the AI SDK's own terms (`tools`, `toolChoice`). */
const policyError = (problem: ToolPolicyProblem): GatewayError => {
  switch (problem.kind) {
    case "invalid-name":
      return new GatewayError(
        "invalid_request",
        `The tool name ${JSON.stringify(problem.name)} is not valid: tool names are 1 to 64 letters, digits, '_' or '-'.`,
        { param: "tools" },
      );
    case "duplicate-name":
      return new GatewayError("invalid_request", `Two tools are named ${problem.name}.`, { param: "tools" });
    case "forced-tool-not-offered":
      return new GatewayError(
        "invalid_request",
        `toolChoice names the tool ${problem.name}, which is not among the tools.`,
        { param: "toolChoice" },
      );
    case "required-without-tools":
      return new GatewayError(
        "invalid_request",
        'toolChoice is "required", but no function tool is offered.',
        {
          param: "toolChoice",
        },
      );
  }
};
