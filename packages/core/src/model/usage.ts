/** Token usage as the backend reported it; `estimated` when the backend gave none and it was counted here. */
export interface Usage {
  readonly inputTokens: number;
  readonly outputTokens: number;
  readonly totalTokens: number;
  readonly cachedInputTokens?: number | undefined;
  readonly reasoningOutputTokens?: number | undefined;
  /** Counted with the gateway's tokenizer because the backend reported no usage. */
  readonly estimated?: boolean | undefined;
}

export const addUsage = (a: Usage | undefined, b: Usage): Usage =>
  a === undefined
    ? b
    : {
        inputTokens: a.inputTokens + b.inputTokens,
        outputTokens: a.outputTokens + b.outputTokens,
        totalTokens: a.totalTokens + b.totalTokens,
        cachedInputTokens: (a.cachedInputTokens ?? 0) + (b.cachedInputTokens ?? 0),
        reasoningOutputTokens: (a.reasoningOutputTokens ?? 0) + (b.reasoningOutputTokens ?? 0),
        ...(a.estimated || b.estimated ? { estimated: true } : {}),
      };
