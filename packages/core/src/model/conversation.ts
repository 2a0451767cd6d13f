import type { Caller } from "../ports/response-store.js";
import type { CompactFirst, CompactionRequest } from "./compaction.js";
import type { HostedTools } from "./hosted-tools.js";
/** Content a message can carry. Images are URLs (data: URLs for the codex backend). */
export type ContentPart =
  | { readonly type: "text"; readonly text: string }
  | {
      readonly type: "image";
      readonly url: string;
      readonly detail?: "auto" | "low" | "high" | undefined;
      /** Where the client put it (`messages[2].content[1].image_url`), to name it in errors. */
      readonly path?: string | undefined;
    };

export type MessageRole = "system" | "developer" | "user" | "assistant";

/**
 * One item of the client's conversation, decoded from Chat `messages` or Responses `input`.
 * Order is significant: items are rendered for the backend in this order.
 */
export type ConversationItem =
  | { readonly type: "message"; readonly role: MessageRole; readonly content: ReadonlyArray<ContentPart> }
  /** An earlier assistant tool call (Chat `tool_calls`, Responses echoed `function_call`). */
  | {
      readonly type: "tool-call";
      readonly callId: string;
      readonly name: string;
      readonly arguments: string;
      /** A call to a custom (freeform) tool: `arguments` is `{"input": "<raw>"}`. */
      readonly custom?: boolean | undefined;
    }
  /** A tool result (Chat `role:"tool"`, Responses `function_call_output`). */
  | {
      readonly type: "tool-result";
      readonly callId: string;
      readonly name?: string | undefined;
      readonly output: string;
      /** Images the tool returned (content parts of its output), shown to the model after the result. */
      readonly images?: ReadonlyArray<Extract<ContentPart, { type: "image" }>> | undefined;
    }
  /** Reasoning echoed back by the client; accepted and (by default) not shown to the backend. */
  | { readonly type: "reasoning"; readonly text: string };

export type ReasoningEffort = "none" | "minimal" | "low" | "medium" | "high" | "xhigh";

/** How much of the model's reasoning the backend should summarise (Responses `reasoning.summary`). */
export type ReasoningSummary = "auto" | "concise" | "detailed" | "none";

/** Everything one client request asks of a turn, independent of the HTTP surface it came from. */
export interface TurnRequest {
  readonly model: string;
  /** Client-level instructions (Responses `instructions`); system/developer messages stay in `items`. */
  readonly instructions?: string | undefined;
  readonly items: ReadonlyArray<ConversationItem>;
  readonly reasoningEffort?: ReasoningEffort | undefined;
  readonly reasoningSummary?: ReasoningSummary | undefined;
  /** JSON Schema the final text must satisfy (`response_format` / `text.format` json_schema). */
  readonly outputSchema?: { readonly [key: string]: unknown } | undefined;
  /** `response_format: json_object`: answer with a JSON object (prompted; no schema). */
  readonly jsonObject?: boolean | undefined;
  /** Output token limit, enforced by the gateway (counted with o200k_base) when the backend has none. */
  readonly maxOutputTokens?: number | undefined;
  /** Text that ends the answer where it first appears (chat `stop`); never applied inside tool calls. */
  readonly stopSequences?: ReadonlyArray<string> | undefined;
  /** What the backend keeps per-caller state under (see `BackendRequest.partition`). Set by the turn session. */
  readonly partition?: string | undefined;
  /** Who asks (see `BackendRequest.caller`). Set by the turn session. */
  readonly caller?: Caller | undefined;
  /** Tools the model provider runs itself that the client asked for (see model/hosted-tools.ts). */
  readonly hostedTools?: HostedTools | undefined;
  /**
   * This turn compacts the conversation (see model/compaction.ts): rendered without tools, and also
   * as the conversation's ordinary turns are, for a backend that can compact that thread natively.
   */
  readonly compaction?: CompactionRequest | undefined;
  /** Compact the conversation first when it is this long, then answer (run by `runCompactingTurn`). */
  readonly compactFirst?: CompactFirst | undefined;
}
