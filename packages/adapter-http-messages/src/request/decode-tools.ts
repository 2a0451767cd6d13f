import {
  findToolPolicyProblem,
  type GatewayError,
  invalidRequest,
  TOOL_NAME_PATTERN,
  type ToolChoice,
  type ToolPolicy,
  type ToolPolicyProblem,
  type ToolSpec,
} from "@proxy/core";
import type { ToolChoiceParam, ToolParam } from "./request-schema.js";

export interface MessagesToolPolicy extends ToolPolicy {
  /** Deferred tools not yet loaded by a `tool_reference`, so not offered this turn. */
  readonly deferredTools: ReadonlyArray<string>;
}

const isClientTool = (tool: ToolParam) => tool.type == null || tool.type === "custom";

const choiceOf = (choice: ToolChoiceParam | undefined): ToolChoice => {
  switch (choice?.type) {
    case undefined:
    case "auto":
      return { type: "auto" };
    case "any":
      return { type: "required" };
    case "none":
      return { type: "none" };
    case "tool":
      return { type: "tool", name: choice.name };
  }
};

/**
 * Anthropic `tools` + `tool_choice` → core's canonical policy. Deferred tools (`defer_loading`) are
 * offered only once a `tool_reference` to them appears in the conversation, as Anthropic's API does,
 * so Claude Code's ToolSearch flow loads them. Errors name the field (`tools[3].name`, `tool_choice`).
 */
export const decodeMessagesTools = (
  tools: ReadonlyArray<ToolParam> | undefined,
  choice: ToolChoiceParam | undefined,
  referenced: ReadonlySet<string>,
): MessagesToolPolicy => {
  const offered: ToolSpec[] = [];
  const deferredTools: string[] = [];
  (tools ?? []).forEach((tool, i) => {
    const at = `tools[${i}]`;
    // Server tools (web search, code execution, …) are accepted and never offered to the model.
    if (!isClientTool(tool)) return;
    if (tool.input_schema === undefined)
      throw invalidRequest(`Missing required parameter: '${at}.input_schema'.`, `${at}.input_schema`);
    if (tool.defer_loading === true && !referenced.has(tool.name)) {
      deferredTools.push(tool.name);
      return;
    }
    offered.push({
      name: tool.name,
      description: tool.description,
      parameters: tool.input_schema,
      strict: tool.strict === true,
    });
  });

  const canonical = choiceOf(choice);
  // Names are checked over every tool (server tools too, as Anthropic does); the choice over those offered.
  const named: ToolSpec[] = (tools ?? []).map((t) => ({ name: t.name, strict: false }));
  const problem = findToolPolicyProblem({
    tools: named,
    choice: canonical,
    parallel: true,
    allowed: offered.map((t) => t.name),
  });
  if (problem !== undefined) throw messagesToolError(problem, deferredTools);
  const parallel = !(
    choice !== undefined &&
    "disable_parallel_tool_use" in choice &&
    choice.disable_parallel_tool_use
  );
  return { tools: offered, choice: canonical, parallel, deferredTools };
};

/** Core's canonical policy problem in Anthropic's words. */
const messagesToolError = (
  problem: ToolPolicyProblem,
  deferredTools: ReadonlyArray<string>,
): GatewayError => {
  switch (problem.kind) {
    case "invalid-name": {
      const param = `tools[${problem.index}].name`;
      return invalidRequest(
        `Invalid value for '${param}': tool names must match ${TOOL_NAME_PATTERN.source}.`,
        param,
      );
    }
    case "duplicate-name": {
      const param = `tools[${problem.index}].name`;
      return invalidRequest(`Duplicate tool name '${problem.name}' in '${param}'.`, param);
    }
    case "forced-tool-not-offered": {
      const why = deferredTools.includes(problem.name)
        ? "is deferred and has not been loaded"
        : "is not one of the provided tools";
      return invalidRequest(
        `Invalid value for 'tool_choice.name': the tool '${problem.name}' ${why}.`,
        "tool_choice.name",
      );
    }
    case "required-without-tools":
      return invalidRequest("Invalid value for 'tool_choice': 'any' needs at least one tool.", "tool_choice");
  }
};
