/** Unified finish reason plus the backend's own word for it (`raw`), vercel-style. */
export type FinishReason = "stop" | "length" | "tool_calls" | "content_filter" | "error";

export interface Finish {
  readonly reason: FinishReason;
  readonly raw: string | undefined;
  /** The client's stop sequence that ended the output (raw `stop_sequence`), when one did. */
  readonly stopSequence?: string | undefined;
}

/**
 * The one rule clients rely on: `tool_calls` iff at least one call was emitted; otherwise the
 * backend's reason, where a backend `tool_calls` without emitted calls degrades to `stop`.
 */
export const resolveFinishReason = (backend: Finish | undefined, emittedCalls: number): Finish => {
  if (emittedCalls > 0) return { reason: "tool_calls", raw: backend?.raw };
  if (backend === undefined) return { reason: "error", raw: "no-finish" };
  return backend.reason === "tool_calls" ? { reason: "stop", raw: backend.raw } : backend;
};
