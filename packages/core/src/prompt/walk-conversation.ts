import type { ContentPart, ConversationItem, TurnRequest } from "../model/conversation.js";
import type { BackendRequest } from "../ports/text-backend.js";

export type ToolCallItem = Extract<ConversationItem, { type: "tool-call" }>;
export type ToolResultItem = Extract<ConversationItem, { type: "tool-result" }>;

/** A plain content message of the rendered history; both renderers' message types include it. */
export interface ContentMessage {
  readonly role: "user" | "assistant" | "developer";
  readonly content: ContentPart[];
}

/** How one renderer emits an earlier tool call and a tool result into the history it builds. */
export interface ToolItemEmitter<M> {
  /** `afterCall`: the item just before this one was a tool call too (the model's parallel calls). */
  readonly call: (messages: M[], item: ToolCallItem, afterCall: boolean) => void;
  readonly result: (messages: M[], item: ToolResultItem) => void;
}

export interface WalkedConversation<M> {
  /** The text of the leading system/developer messages, for the instructions. */
  readonly system: string[];
  readonly messages: M[];
  readonly echoedCalls: number;
}

/** A message's parts as the backend gets them: an image's place in the client request stays here. */
export const backendParts = (parts: ReadonlyArray<ContentPart>): ContentPart[] =>
  parts.map((p) =>
    p.type === "image" && p.path !== undefined ? { type: "image", url: p.url, detail: p.detail } : p,
  );

const joinText = (parts: ReadonlyArray<ContentPart>): string =>
  parts.flatMap((p) => (p.type === "text" ? [p.text] : [])).join("\n");

/**
 * Walks the client's conversation once for either renderer: leading system/developer messages go
 * to the instructions, later ones stay in place as developer messages, other messages keep their
 * role, and tool calls and results go to the renderer's emitter. Reasoning items are not shown.
 */
export const walkConversation = <M>(
  items: ReadonlyArray<ConversationItem>,
  emit: ToolItemEmitter<M | ContentMessage>,
): WalkedConversation<M | ContentMessage> => {
  const system: string[] = [];
  const messages: Array<M | ContentMessage> = [];
  let echoedCalls = 0;
  let leading = true;
  let afterCall = false;

  for (const item of items) {
    const isCall = item.type === "tool-call";
    if (item.type === "message" && (item.role === "system" || item.role === "developer")) {
      if (leading) system.push(joinText(item.content));
      else messages.push({ role: "developer", content: backendParts(item.content) });
    } else {
      leading = false;
      if (item.type === "message") {
        if (item.content.length > 0)
          messages.push({
            role: item.role === "assistant" ? "assistant" : "user",
            content: backendParts(item.content),
          });
      } else if (item.type === "tool-call") {
        echoedCalls++;
        emit.call(messages, item, afterCall);
      } else if (item.type === "tool-result") emit.result(messages, item);
    }
    afterCall = isCall;
  }
  return { system, messages, echoedCalls };
};

/**
 * The instructions both renderers send: the base prompt, the client's instructions and leading
 * system messages, the JSON-object rule, then the mode's own tool section.
 */
export const joinInstructions = (
  base: string,
  turn: TurnRequest,
  system: ReadonlyArray<string>,
  toolSection: string,
): string =>
  [
    base,
    turn.instructions?.trim() ?? "",
    ...system.map((s) => s.trim()),
    turn.jsonObject ? "Reply with a single valid JSON object and nothing else." : "",
    toolSection,
  ]
    .filter((s) => s !== "")
    .join("\n\n");

/** The turn's generation settings, passed through unchanged by either renderer. */
export const turnSettings = (
  turn: TurnRequest,
): Pick<
  BackendRequest,
  | "reasoningEffort"
  | "reasoningSummary"
  | "outputSchema"
  | "maxOutputTokens"
  | "partition"
  | "caller"
  | "hostedTools"
> => ({
  reasoningEffort: turn.reasoningEffort,
  reasoningSummary: turn.reasoningSummary,
  outputSchema: turn.outputSchema,
  maxOutputTokens: turn.maxOutputTokens,
  partition: turn.partition,
  caller: turn.caller,
  hostedTools: turn.hostedTools,
});
