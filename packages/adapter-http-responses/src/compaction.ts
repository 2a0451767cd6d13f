import type { AssistantEvent, GatewayError, ToolPolicy, TurnRequest, Usage } from "@proxy/core";
import { COMPACTION_INSTRUCTION, type CompactionKeep } from "@proxy/core/gateway";

export { COMPACTION_INSTRUCTION } from "@proxy/core/gateway";

/**
 * Compaction through the backend: the conversation so far plus one more user message asking for
 * a handoff summary. The summary travels back to the client as a `compaction` item's
 * `encrypted_content` and is fed to the backend again when that item is echoed (map-input.ts).
 * With `native` (the client's tools, as its ordinary turns offer them), a backend that holds the
 * conversation's live thread compacts that thread instead (codex: `thread/compact/start`), and the
 * echoed item continues it on the same thread and cache key.
 */
export const withCompactionInstruction = (
  turn: TurnRequest,
  native?: { readonly tools: ToolPolicy; readonly keep: CompactionKeep },
): TurnRequest => ({
  ...turn,
  // A schema or JSON-object format would shape the summary, not the answer the client wants later.
  outputSchema: undefined,
  jsonObject: undefined,
  items: [
    ...turn.items,
    { type: "message", role: "user", content: [{ type: "text", text: COMPACTION_INSTRUCTION }] },
  ],
  ...(native === undefined ? {} : { compaction: native }),
});

export type SummaryOutcome =
  | { readonly ok: true; readonly summary: string; readonly usage: Usage | undefined }
  | { readonly ok: false; readonly error: GatewayError };

/** Folds a compaction turn's events into its summary (tools are off, so text is all it produces). */
export const createSummaryCollector = () => {
  let summary = "";
  let usage: Usage | undefined;
  let error: GatewayError | undefined;
  return {
    push(event: AssistantEvent): void {
      if (error !== undefined) return;
      if (event.type === "text-delta") summary += event.delta;
      else if (event.type === "usage") usage = event.usage;
      else if (event.type === "error") error = event.error;
    },
    outcome: (): SummaryOutcome =>
      error === undefined ? { ok: true, summary: summary.trim(), usage } : { ok: false, error },
  };
};
