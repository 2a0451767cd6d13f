import { callFormatFor } from "../formats/index.js";
import type { ContentPart, ConversationItem, TurnRequest } from "../model/conversation.js";
import type { ToolPolicy } from "../model/tool-spec.js";
import type { BlockFormat } from "../parser/block-format.js";
import type { BackendRequest } from "../ports/text-backend.js";
import { renderToolManifest } from "./render-manifest.js";

type ContentRole = "user" | "assistant" | "developer";

/** The gateway's own base prompt: replaces the backend's agent prompt (codex talks about shells). */
export const GATEWAY_BASE_INSTRUCTIONS =
  "You are a helpful assistant answering through an API. Follow the instructions below. You cannot run commands, read files or browse; you act only through your reply and, when functions are listed, by calling them in the exact format described.";

export interface RenderedPrompt {
  readonly request: BackendRequest;
  /** Earlier assistant tool calls the client sent back, re-rendered as sentinel blocks. */
  readonly echoedCalls: number;
}

const text = (t: string): ContentPart => ({ type: "text", text: t });

/** A message's parts as the backend gets them: an image's place in the client request stays here. */
export const backendParts = (parts: ReadonlyArray<ContentPart>): ContentPart[] =>
  parts.map((p) =>
    p.type === "image" && p.path !== undefined ? { type: "image", url: p.url, detail: p.detail } : p,
  );

/**
 * One tool result for the backend. Id and output are JSON string literals (quotes, backslashes and
 * newlines escaped), so nothing a tool returns can end this frame or start another one.
 */
export const renderToolResult = (callId: string, output: string): string =>
  `[function_call_output call_id=${JSON.stringify(callId)} output=${JSON.stringify(output)}]`;

const joinText = (parts: ReadonlyArray<ContentPart>): string =>
  parts.flatMap((p) => (p.type === "text" ? [p.text] : [])).join("\n");

/**
 * Renders the conversation for a text-only backend, roles preserved: earlier calls become the same
 * sentinel blocks the model is taught (name first), tool results become user-side result lines.
 */
export const renderBackendRequest = (
  turn: TurnRequest,
  policy: ToolPolicy,
  format: BlockFormat,
  baseInstructions: string = GATEWAY_BASE_INSTRUCTIONS,
): RenderedPrompt => {
  const system: string[] = [];
  const messages: Array<{ role: ContentRole; content: ContentPart[] }> = [];
  let echoedCalls = 0;
  let leading = true;
  const last = () => messages[messages.length - 1];
  const append = (role: ContentRole, parts: ReadonlyArray<ContentPart>, separator = "\n") => {
    const tail = last();
    if (tail?.role === role && tail.content.length > 0) {
      tail.content.push(text(separator), ...parts);
    } else messages.push({ role, content: [...parts] });
  };

  const customTools = new Set(policy.tools.flatMap((t) => (t.custom === true ? [t.name] : [])));
  for (const item of turn.items as ReadonlyArray<ConversationItem>) {
    if (item.type === "message" && (item.role === "system" || item.role === "developer")) {
      if (leading) system.push(joinText(item.content));
      else messages.push({ role: "developer", content: backendParts(item.content) });
      continue;
    }
    leading = false;
    if (item.type === "message") {
      if (item.content.length > 0)
        messages.push({
          role: item.role === "assistant" ? "assistant" : "user",
          content: backendParts(item.content),
        });
    } else if (item.type === "tool-call") {
      echoedCalls++;
      const custom = item.custom === true || customTools.has(item.name);
      append("assistant", [text(callFormatFor(custom, format).renderCall(item.name, item.arguments))]);
    } else if (item.type === "tool-result") {
      append("user", [text(renderToolResult(item.callId, item.output)), ...backendParts(item.images ?? [])]);
    }
  }

  const tail = last();
  const input: ContentPart[] = tail?.role === "user" ? (messages.pop()?.content ?? []) : [text("Continue.")];
  const instructions = [
    baseInstructions,
    turn.instructions?.trim() ?? "",
    ...system.map((s) => s.trim()),
    turn.jsonObject ? "Reply with a single valid JSON object and nothing else." : "",
    renderToolManifest(policy, format),
  ].filter((s) => s !== "");

  return {
    echoedCalls,
    request: {
      model: turn.model,
      instructions: instructions.join("\n\n"),
      history: messages,
      input,
      reasoningEffort: turn.reasoningEffort,
      reasoningSummary: turn.reasoningSummary,
      outputSchema: turn.outputSchema,
      maxOutputTokens: turn.maxOutputTokens,
    },
  };
};
