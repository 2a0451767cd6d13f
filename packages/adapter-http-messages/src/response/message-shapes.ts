import type { Finish, Usage } from "@proxy/core";

/** The wire shapes of the Messages API this surface sends. */

export type StopReason = "end_turn" | "max_tokens" | "stop_sequence" | "tool_use" | "refusal" | "compaction";

export interface MessagesUsage {
  input_tokens: number;
  output_tokens: number;
  cache_creation_input_tokens: number;
  cache_read_input_tokens: number;
  /** After a compaction: its usage and the answer's, apart (the top-level fields are the answer's). */
  iterations?: Array<{ type: "compaction" | "message" } & Omit<MessagesUsage, "iterations">>;
  /** The server tools the model used: present once it searched the web. */
  server_tool_use?: { web_search_requests: number };
}

/** Where a text block cites a search result (derived from the answer's link: docs/hosted-tools.md). */
export interface WebSearchCitation {
  type: "web_search_result_location";
  url: string;
  title: string;
  encrypted_index: string;
  cited_text: string;
}

export interface WebSearchResult {
  type: "web_search_result";
  url: string;
  title: string;
  encrypted_content: string;
  page_age: string | null;
}

export type OutputBlock =
  | { type: "text"; text: string; citations?: WebSearchCitation[] }
  | { type: "thinking"; thinking: string; signature: string }
  | { type: "tool_use"; id: string; name: string; input: unknown }
  | { type: "compaction"; content: string | null; encrypted_content: string | null }
  | { type: "server_tool_use"; id: string; name: "web_search"; input: unknown }
  | { type: "web_search_tool_result"; tool_use_id: string; content: WebSearchResult[] };

export interface MessageObject {
  id: string;
  type: "message";
  role: "assistant";
  model: string;
  content: OutputBlock[];
  stop_reason: StopReason | null;
  stop_sequence: string | null;
  usage: MessagesUsage;
}

export type BlockDelta =
  | { type: "text_delta"; text: string }
  | { type: "thinking_delta"; thinking: string }
  | { type: "signature_delta"; signature: string }
  | { type: "input_json_delta"; partial_json: string }
  | { type: "compaction_delta"; content: string; encrypted_content: string | null }
  | { type: "citations_delta"; citation: WebSearchCitation };

export type MessagesStreamEvent =
  | { type: "message_start"; message: MessageObject }
  | { type: "content_block_start"; index: number; content_block: OutputBlock }
  | { type: "content_block_delta"; index: number; delta: BlockDelta }
  | { type: "content_block_stop"; index: number }
  | {
      type: "message_delta";
      delta: { stop_reason: StopReason; stop_sequence: string | null };
      usage: Partial<MessagesUsage> & { output_tokens: number };
    }
  | { type: "message_stop" }
  | { type: "ping" }
  | { type: "error"; error: { type: string; message: string } };

/** What every event of one response shares. */
export interface MessageMeta {
  readonly id: string;
  readonly model: string;
  /** The request's `stop_sequences`: with exactly one, a stop-sequence finish can name it. */
  readonly stopSequences?: ReadonlyArray<string> | undefined;
  /** Send the backend's reasoning as thinking blocks (the client enabled thinking); default true. */
  readonly thinking?: boolean | undefined;
}

/**
 * Codex reports cached tokens inside its input count; Anthropic counts cache reads separately.
 * `searches`: the web searches the model made (`server_tool_use.web_search_requests`), when any.
 */
export const messagesUsage = (usage: Usage | undefined, searches = 0): MessagesUsage => {
  const cached = usage?.cachedInputTokens ?? 0;
  return {
    input_tokens: Math.max(0, (usage?.inputTokens ?? 0) - cached),
    output_tokens: usage?.outputTokens ?? 0,
    cache_creation_input_tokens: 0,
    cache_read_input_tokens: cached,
    ...(searches > 0 ? { server_tool_use: { web_search_requests: searches } } : {}),
  };
};

export const stopReasonOf = (finish: Finish): StopReason => {
  switch (finish.reason) {
    case "tool_calls":
      return "tool_use";
    case "length":
      return "max_tokens";
    case "content_filter":
      return "refusal";
    default:
      // The core's stop-sequence machine reports `stop` with this raw reason.
      return finish.raw === "stop_sequence" ? "stop_sequence" : "end_turn";
  }
};

/** Anthropic's tool-use ids are `toolu_…`; the core's call ids are `call_…` with the same tail. */
export const toolUseId = (callId: string): string => `toolu_${callId.replace(/^call_/, "")}`;

/**
 * The core's call id for a `tool_use` id the client sends back: the inverse of `toolUseId`, so a
 * conversation comes back with the very ids the backend produced (a backend that keeps the
 * conversation, codex's live threads, recognises its own calls).
 */
export const callIdOf = (toolUseId: string): string => toolUseId.replace(/^toolu_/, "call_");

/**
 * Thinking blocks need a signature the client can echo back; the backend's reasoning is not signed,
 * so every block carries this marker (echoed thinking is accepted whatever its signature).
 */
export const THINKING_SIGNATURE = "cHJveHktZ2F0ZXdheS11bnNpZ25lZA==";
