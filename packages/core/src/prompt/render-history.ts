import { callFormatFor } from "../formats/index.js";
import type { ContentPart, TurnRequest } from "../model/conversation.js";
import type { ToolPolicy } from "../model/tool-spec.js";
import type { BlockFormat } from "../parser/block-format.js";
import type { BackendRequest } from "../ports/text-backend.js";
import { type PromptTexts, renderToolResult } from "./prompt-texts.js";
import { renderToolManifest } from "./render-manifest.js";
import {
  backendParts,
  type ContentMessage,
  joinInstructions,
  turnSettings,
  walkConversation,
} from "./walk-conversation.js";

export { renderToolResult } from "./prompt-texts.js";
export { backendParts } from "./walk-conversation.js";

/** The gateway's own base prompt: replaces the backend's agent prompt (codex talks about shells). */
export const GATEWAY_BASE_INSTRUCTIONS =
  "You are a helpful assistant answering through an API. Follow the instructions below. You cannot run commands, read files or browse; you act only through your reply and, when functions are listed, by calling them in the exact format described.";

export interface RenderedPrompt {
  readonly request: BackendRequest;
  /** Earlier assistant tool calls the client sent back, re-rendered as sentinel blocks. */
  readonly echoedCalls: number;
}

const text = (t: string): ContentPart => ({ type: "text", text: t });

/** How a prompt is rendered: the base prompt and the replaceable texts (all optional). */
export interface PromptOptions extends PromptTexts {
  /** The base prompt that replaces the backend's own (default `GATEWAY_BASE_INSTRUCTIONS`). */
  readonly baseInstructions?: string | undefined;
}

/** A call or result line joins the message before it when that one has the same role. */
const append = (
  messages: ContentMessage[],
  role: ContentMessage["role"],
  parts: ReadonlyArray<ContentPart>,
) => {
  const tail = messages.at(-1);
  if (tail?.role === role && tail.content.length > 0) tail.content.push(text("\n"), ...parts);
  else messages.push({ role, content: [...parts] });
};

/**
 * Renders the conversation for a text-only backend, roles preserved: earlier calls become the same
 * sentinel blocks the model is taught (name first), tool results become user-side result lines.
 * The fourth argument is the base prompt, or `PromptOptions` (base prompt, texts, placement).
 */
export const renderBackendRequest = (
  turn: TurnRequest,
  policy: ToolPolicy,
  format: BlockFormat,
  options: string | PromptOptions = GATEWAY_BASE_INSTRUCTIONS,
): RenderedPrompt => {
  const texts: PromptOptions = typeof options === "string" ? { baseInstructions: options } : options;
  const baseInstructions = texts.baseInstructions ?? GATEWAY_BASE_INSTRUCTIONS;
  const toolResult = texts.toolResult ?? renderToolResult;
  const customTools = new Set(policy.tools.flatMap((t) => (t.custom === true ? [t.name] : [])));
  const { system, messages, echoedCalls } = walkConversation<ContentMessage>(turn.items, {
    call: (history, item) => {
      const custom = item.custom === true || customTools.has(item.name);
      append(history, "assistant", [
        text(callFormatFor(custom, format).renderCall(item.name, item.arguments)),
      ]);
    },
    result: (history, item) =>
      append(history, "user", [
        text(toolResult(item.callId, item.output)),
        ...backendParts(item.images ?? []),
      ]),
  });

  const tail = messages.at(-1);
  const input: ContentPart[] = tail?.role === "user" ? (messages.pop()?.content ?? []) : [text("Continue.")];
  const manifest = renderToolManifest(policy, format, texts);
  const inMessage = texts.placement === "message" && manifest !== "";
  if (inMessage) messages.unshift({ role: "user", content: [text(manifest)] });
  return {
    echoedCalls,
    request: {
      model: turn.model,
      instructions: joinInstructions(baseInstructions, turn, system, inMessage ? "" : manifest),
      history: messages,
      input,
      ...turnSettings(turn),
    },
  };
};
