import type { ContentPart, TurnRequest } from "../model/conversation.js";
import type { JsonSchema, ToolPolicy, ToolSpec } from "../model/tool-spec.js";
import type { NativeToolCall } from "../ports/text-backend.js";
import type { RenderedPrompt } from "./render-history.js";
import { joinInstructions, turnSettings, walkConversation } from "./walk-conversation.js";

/** The gateway's base prompt for native turns: the model calls functions through its own API. */
export const NATIVE_BASE_INSTRUCTIONS =
  "You are a helpful assistant answering through an API. Follow the instructions below. You cannot run commands, read files or browse; you act only through your reply and, when functions are offered, by calling them.";

/** The native history as it is built: consecutive calls collect in one assistant message. */
type NativeMessage =
  | { readonly role: "assistant"; readonly toolCalls: NativeToolCall[] }
  | { readonly role: "tool"; readonly callId: string; readonly output: string };

const CUSTOM_INPUT_SCHEMA: JsonSchema = {
  type: "object",
  properties: {
    input: { type: "string", description: "The tool's raw input, exactly as its grammar asks." },
  },
  required: ["input"],
  additionalProperties: false,
};

/**
 * A tool as a native backend's plain function. A custom (freeform) tool becomes a function with one
 * required string `input` (its description carries the grammar), so its native call's arguments are
 * already core's `{"input": "<raw>"}`.
 */
export const asNativeFunction = (
  tool: ToolSpec,
): { name: string; description: string | undefined; parameters: JsonSchema; strict: boolean } => {
  if (tool.custom !== true)
    return {
      name: tool.name,
      description: tool.description,
      parameters: tool.parameters ?? { type: "object", properties: {} },
      strict: tool.strict,
    };
  const grammar =
    tool.grammar === undefined
      ? "Its input is free text."
      : `Its input must match this ${tool.grammar.syntax} grammar exactly:\n${tool.grammar.definition}`;
  const description = [tool.description?.trim() ?? "", `Put the raw input in \`input\`. ${grammar}`]
    .filter((s) => s !== "")
    .join("\n\n");
  return { name: tool.name, description, parameters: CUSTOM_INPUT_SCHEMA, strict: false };
};

/** Native function calling has no tool_choice on every backend: the rule is also stated in words. */
const choiceRule = (policy: ToolPolicy): string => {
  switch (policy.choice.type) {
    case "required":
      return "You MUST call at least one function in this reply.";
    case "tool":
      return `You MUST call the function ${policy.choice.name} in this reply, and no other function.`;
    case "none":
      return "Do NOT call any function in this reply. Answer with text only.";
    default:
      return policy.parallel ? "" : "Call at most ONE function per reply.";
  }
};

/**
 * Renders the conversation for a native turn: earlier calls and their outputs stay native items
 * (the backend injects them as function calls and function outputs), and the tools go to the
 * backend as data, not as a manifest. A conversation that ends with tool outputs has no new user
 * input: the outputs themselves are what the model answers.
 */
export const renderNativeRequest = (
  turn: TurnRequest,
  policy: ToolPolicy,
  baseInstructions: string = NATIVE_BASE_INSTRUCTIONS,
): RenderedPrompt => {
  const { system, messages, echoedCalls } = walkConversation<NativeMessage>(turn.items, {
    call: (history, item, afterCall) => {
      const call = { callId: item.callId, name: item.name, arguments: item.arguments };
      // Consecutive calls are one assistant turn (parallel calls), as the model produced them.
      const tail = history.at(-1);
      if (afterCall && tail !== undefined && "toolCalls" in tail) tail.toolCalls.push(call);
      else history.push({ role: "assistant", toolCalls: [call] });
    },
    result: (history, item) => history.push({ role: "tool", callId: item.callId, output: item.output }),
  });

  const tail = messages.at(-1);
  let input: ContentPart[] = [];
  if (tail?.role === "user" && "content" in tail) {
    messages.pop();
    input = [...tail.content];
  } else if (tail?.role !== "tool") input = [{ type: "text", text: "Continue." }];

  const forced = policy.choice.type === "tool" ? policy.choice.name : undefined;
  return {
    echoedCalls,
    request: {
      model: turn.model,
      instructions: joinInstructions(baseInstructions, turn, system, choiceRule(policy)),
      history: messages,
      input,
      tools:
        forced === undefined ? policy : { ...policy, tools: policy.tools.filter((t) => t.name === forced) },
      ...turnSettings(turn),
    },
  };
};
