import {
  invalidRequest,
  TOOL_NAME_PATTERN,
  type ToolChoice,
  type ToolPolicy,
  type ToolSpec,
} from "@proxy/core";
import type { ToolChoiceParam, ToolParam } from "./request-schema.js";

export interface MessagesToolPolicy extends ToolPolicy {
  /** Server tools (web search, code execution, …): accepted, never offered to the model. */
  readonly ignoredToolTypes: ReadonlyArray<string>;
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
  const ignoredToolTypes: string[] = [];
  const seen = new Set<string>();
  (tools ?? []).forEach((tool, i) => {
    const at = `tools[${i}]`;
    if (!TOOL_NAME_PATTERN.test(tool.name))
      throw invalidRequest(
        `Invalid value for '${at}.name': tool names must match ${TOOL_NAME_PATTERN.source}.`,
        `${at}.name`,
      );
    if (seen.has(tool.name))
      throw invalidRequest(`Duplicate tool name '${tool.name}' in '${at}.name'.`, `${at}.name`);
    seen.add(tool.name);
    if (!isClientTool(tool)) {
      ignoredToolTypes.push(tool.type ?? "");
      return;
    }
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
  if (canonical.type === "tool" && !offered.some((t) => t.name === canonical.name)) {
    const why = deferredTools.includes(canonical.name)
      ? "is deferred and has not been loaded"
      : "is not one of the provided tools";
    throw invalidRequest(
      `Invalid value for 'tool_choice.name': the tool '${canonical.name}' ${why}.`,
      "tool_choice.name",
    );
  }
  if (canonical.type === "required" && offered.length === 0)
    throw invalidRequest("Invalid value for 'tool_choice': 'any' needs at least one tool.", "tool_choice");
  const parallel = !(
    choice !== undefined &&
    "disable_parallel_tool_use" in choice &&
    choice.disable_parallel_tool_use
  );
  return { tools: offered, choice: canonical, parallel, ignoredToolTypes, deferredTools };
};
