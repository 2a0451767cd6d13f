import type { ToolPolicy } from "../model/tool-spec.js";
import type { BlockFormat } from "../parser/block-format.js";

/**
 * One tool result for the backend. Id and output are JSON string literals (quotes, backslashes and
 * newlines escaped), so nothing a tool returns can end this frame or start another one.
 */
export const renderToolResult = (callId: string, output: string): string =>
  `[function_call_output call_id=${JSON.stringify(callId)} output=${JSON.stringify(output)}]`;

/**
 * The words a text-only model is taught with, each replaceable; what is not given keeps the
 * gateway's own text. A replacement is called once per rendered prompt, never per delta.
 */
export interface PromptTexts {
  /** The lines before the format's rules (default: a "# Functions" heading and what calling means). */
  readonly intro?: ReadonlyArray<string> | undefined;
  /**
   * The rule lines after the format's own: fences, where results come back, tool_choice, the
   * parallel cap, strict schemas (default `manifestRules`, which a replacement may call and edit).
   */
  readonly rules?: ((policy: ToolPolicy, texts: PromptTexts) => ReadonlyArray<string>) | undefined;
  /**
   * The whole manifest, instead of the default layout (intro, rules, tool list, examples); "" for
   * no manifest. The default is `renderToolManifest`.
   */
  readonly manifest?: ((policy: ToolPolicy, format: BlockFormat) => string) | undefined;
  /** One tool result as the model reads it in the history (default `renderToolResult`). */
  readonly toolResult?: ((callId: string, output: string) => string) | undefined;
  /**
   * Where the manifest goes: joined to the system instructions (default) or as a user message
   * before the conversation (for backends whose system prompt is fixed or short).
   */
  readonly placement?: "system" | "message" | undefined;
}

export const DEFAULT_MANIFEST_INTRO: ReadonlyArray<string> = [
  "# Functions",
  "You can call the functions listed below. You cannot run anything yourself: the caller runs the function and sends you its result.",
];
