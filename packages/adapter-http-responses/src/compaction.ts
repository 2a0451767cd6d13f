import type { AssistantEvent, GatewayError, TurnRequest, Usage } from "@proxy/core";

/**
 * Compaction through the backend: the conversation so far plus one more user message asking for
 * a handoff summary. The summary travels back to the client as a `compaction` item's
 * `encrypted_content` and is fed to the backend again when that item is echoed (map-input.ts).
 */
export const COMPACTION_INSTRUCTION = [
  "Compact this conversation into a handoff summary for another assistant that will continue it",
  "without seeing the history above. Include: the user's goal and constraints, decisions made,",
  "work done so far (commands run, files changed, tool results that matter), the current state,",
  "and the concrete next steps. Be concise and factual. Answer with the summary text only; do not",
  "call any tools.",
].join(" ");

export const withCompactionInstruction = (turn: TurnRequest): TurnRequest => ({
  ...turn,
  // A schema or JSON-object format would shape the summary, not the answer the client wants later.
  outputSchema: undefined,
  jsonObject: undefined,
  items: [
    ...turn.items,
    { type: "message", role: "user", content: [{ type: "text", text: COMPACTION_INSTRUCTION }] },
  ],
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
