import { CUSTOM_TOOL_RAW_FORMAT } from "../formats/index.js";
import { callableTools, offeredTools } from "../model/tool-policy.js";
import type { ToolPolicy, ToolSpec } from "../model/tool-spec.js";
import type { BlockFormat } from "../parser/block-format.js";
import { exampleArguments } from "./example-arguments.js";
import { DEFAULT_MANIFEST_INTRO, type PromptTexts, renderToolResult } from "./prompt-texts.js";

/** Schemas go in compact, minus noise that costs tokens and teaches nothing. */
const compactSchema = (tool: ToolSpec): string => {
  const { $schema: _ignored, ...rest } = (tool.parameters ?? { type: "object", properties: {} }) as Record<
    string,
    unknown
  >;
  return JSON.stringify(rest);
};

/** A custom tool: its own description and grammar, verbatim (line structure matters in both). */
const describeCustomTool = (tool: ToolSpec): string => {
  const lines = [`- ${tool.name} (custom: free-text input)`];
  const description = tool.description?.trim();
  if (description) lines.push(`  description: ${description}`);
  if (tool.grammar !== undefined)
    lines.push(
      `  input grammar (${tool.grammar.syntax}; the input must match it exactly):`,
      tool.grammar.definition,
    );
  else lines.push("  input: free text");
  return lines.join("\n");
};

const describeTool = (tool: ToolSpec): string => {
  if (tool.custom === true) return describeCustomTool(tool);
  const flags = tool.strict ? " (strict)" : "";
  const description = tool.description?.trim() ? ` — ${tool.description.trim().replace(/\s+/g, " ")}` : "";
  return `- ${tool.name}${flags}${description}\n  arguments schema: ${compactSchema(tool)}`;
};

const exampleBlock = (tool: ToolSpec, format: BlockFormat): string =>
  format.renderCall(tool.name, JSON.stringify(exampleArguments(tool.parameters)));

/**
 * The default rule lines after the format's own; the result line shows `texts.toolResult`'s
 * wording, so a replaced result frame is taught as it will be seen.
 */
export const manifestRules = (policy: ToolPolicy, texts: PromptTexts = {}): string[] => {
  const result = (texts.toolResult ?? renderToolResult)("<id>", "<the result, as a JSON string>");
  const rules: string[] = [
    "- Never put a tool block inside a Markdown code fence or quotes, and never show the syntax to the user.",
    "- Only blocks in exactly this form are function calls; JSON written any other way is shown to the user as plain text.",
    `- After your block(s), stop writing. Results come back as: ${result}`,
  ];
  switch (policy.choice.type) {
    case "none":
      rules.push("- Do NOT call any function in this reply. Answer with text only.");
      break;
    case "required":
      rules.push("- You MUST call at least one function in this reply.");
      break;
    case "tool":
      rules.push(`- You MUST call the function ${policy.choice.name} in this reply, and no other function.`);
      break;
    case "auto":
      rules.push("- Call a function only when it helps; otherwise answer with text.");
  }
  rules.push(
    policy.parallel
      ? "- You may call several functions in one reply by writing several blocks one after another."
      : "- Call at most ONE function per reply.",
  );
  if (offeredTools(policy).some((t) => t.strict)) {
    rules.push(
      "- Functions marked (strict) must get arguments that match their schema exactly: every required property, the right types, no extra properties.",
    );
  }
  return rules;
};

/**
 * The tool manifest and sentinel rules for a text-only model, with one or two examples built from
 * the request's own tools, in the format's delimiters. Returns "" when the request has no tools.
 * `texts` replaces the intro, the rules or the whole manifest.
 */
export const renderToolManifest = (
  policy: ToolPolicy,
  format: BlockFormat,
  texts: PromptTexts = {},
): string => {
  if (texts.manifest !== undefined) return texts.manifest(policy, format);
  const offered = offeredTools(policy);
  if (offered.length === 0) return "";
  // Custom tools are taught by the raw format's own rules; examples show function tools only.
  const examples = callableTools(policy)
    .filter((t) => t.custom !== true)
    .slice(0, policy.parallel ? 2 : 1);
  const custom = offered.some((t) => t.custom === true) && format !== CUSTOM_TOOL_RAW_FORMAT;
  return [
    ...(texts.intro ?? DEFAULT_MANIFEST_INTRO),
    ...format.promptRules,
    ...(custom ? CUSTOM_TOOL_RAW_FORMAT.promptRules : []),
    ...(texts.rules ?? manifestRules)(policy, texts),
    "",
    "Available functions:",
    ...offered.map(describeTool),
    ...(examples.length === 0
      ? []
      : [
          "",
          examples.length > 1 ? "Example (two calls in one reply):" : "Example:",
          ...examples.map((tool) => exampleBlock(tool, format)),
        ]),
  ].join("\n");
};
