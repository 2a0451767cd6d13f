import type { ToolPolicy } from "./tool-spec.js";

/**
 * Compaction: the conversation so far replaced by a handoff summary the backend writes. The texts
 * live here because two sides must agree on them byte for byte: the surface that shows an echoed
 * summary to the model, and a backend that compacts its own thread natively and must key the
 * compacted thread by the conversation the client will send back (see `BackendRequest.compaction`).
 */
export const COMPACTION_INSTRUCTION = [
  "Compact this conversation into a handoff summary for another assistant that will continue it",
  "without seeing the history above. Include: the user's goal and constraints, decisions made,",
  "work done so far (commands run, files changed, tool results that matter), the current state,",
  "and the concrete next steps. Be concise and factual. Answer with the summary text only; do not",
  "call any tools.",
].join(" ");

/** How a summary the gateway issued is shown to the model when the client sends it back (a user message). */
export const renderCompactionSummary = (summary: string): string =>
  `Summary of the earlier part of this conversation (the full history was compacted):\n\n${summary}`;

/**
 * What the client's compacted history holds before the summary: its user messages (OpenAI's
 * `/responses/compact` output), or nothing (Anthropic drops every block before the compaction block).
 */
export type CompactionKeep = "user-messages" | "none";

/** A turn that compacts (its last user message asks for the summary; it runs without tools). */
export interface CompactionRequest {
  readonly keep: CompactionKeep;
  /** The tools the conversation's ordinary turns offer: how its live thread, if any, was rendered. */
  readonly tools: ToolPolicy;
}

/**
 * Compact first, then answer (Anthropic's `compact_20260112` edit, and its on-demand `compaction`):
 * when the prompt reaches `triggerTokens` (the gateway's estimate), the conversation is summarized
 * and the turn answers the summary alone; with `pause` the summary is the whole answer.
 */
export interface CompactFirst {
  /** 0: always. */
  readonly triggerTokens: number;
  readonly pause: boolean;
  /** Replaces the summary prompt (the backend then runs the summary turn as written, never its own). */
  readonly instructions?: string | undefined;
}
