import type { Usage } from "@proxy/core";
import type { ResponsesRequest } from "../request/request-schema.js";
import type { OutputItem } from "./output-items.js";

export type ResponseStatus = "queued" | "in_progress" | "completed" | "incomplete" | "failed";

export interface ResponseUsage {
  readonly input_tokens: number;
  readonly input_tokens_details: { readonly cached_tokens: number };
  readonly output_tokens: number;
  readonly output_tokens_details: { readonly reasoning_tokens: number };
  readonly total_tokens: number;
}

export interface IncompleteDetails {
  readonly reason: "max_output_tokens" | "content_filter";
}

export interface ResponseError {
  readonly code: string;
  readonly message: string;
}

/** Everything fixed for the life of one response: ids, clock reading and the request to echo. */
export interface ResponseHeader {
  readonly id: string;
  readonly createdAt: number;
  readonly model: string;
  readonly body: Partial<ResponsesRequest>;
  /** Kept by the gateway's store (`store` echoes this; false when the gateway is stateless). */
  readonly stored?: boolean | undefined;
  readonly conversationId?: string | null | undefined;
}

export interface ResponseState {
  readonly status: ResponseStatus;
  readonly output: ReadonlyArray<OutputItem>;
  readonly usage?: Usage | undefined;
  readonly error?: ResponseError | undefined;
  readonly incompleteDetails?: IncompleteDetails | undefined;
  readonly completedAt?: number | undefined;
}

/** Usage in the Responses shape; all totals always present (codex fails without total_tokens). */
export const toResponseUsage = (usage: Usage | undefined): ResponseUsage => ({
  input_tokens: usage?.inputTokens ?? 0,
  input_tokens_details: { cached_tokens: usage?.cachedInputTokens ?? 0 },
  output_tokens: usage?.outputTokens ?? 0,
  output_tokens_details: { reasoning_tokens: usage?.reasoningOutputTokens ?? 0 },
  total_tokens: usage?.totalTokens ?? 0,
});

/**
 * The documented Response object. Request settings are echoed back as OpenAI does; `store` says
 * whether the gateway keeps it (always false when it runs without a store).
 */
export const buildResponse = (header: ResponseHeader, state: ResponseState) => {
  const body = header.body;
  const terminal = state.status !== "in_progress";
  return {
    id: header.id,
    object: "response" as const,
    created_at: header.createdAt,
    status: state.status,
    ...(state.completedAt === undefined ? {} : { completed_at: state.completedAt }),
    background: body.background ?? false,
    ...(header.conversationId ? { conversation: { id: header.conversationId } } : {}),
    error: state.error ?? null,
    incomplete_details: state.incompleteDetails ?? null,
    instructions: body.instructions ?? null,
    max_output_tokens: body.max_output_tokens ?? null,
    max_tool_calls: body.max_tool_calls ?? null,
    model: header.model,
    output: state.output,
    parallel_tool_calls: body.parallel_tool_calls ?? true,
    previous_response_id: body.previous_response_id ?? null,
    prompt_cache_key: body.prompt_cache_key ?? null,
    reasoning: { effort: body.reasoning?.effort ?? null, summary: body.reasoning?.summary ?? null },
    service_tier: body.service_tier ?? "default",
    store: header.stored ?? false,
    temperature: body.temperature ?? null,
    text: {
      format: body.text?.format ?? { type: "text" },
      ...(body.text?.verbosity ? { verbosity: body.text.verbosity } : {}),
    },
    tool_choice: body.tool_choice ?? "auto",
    tools: body.tools ?? [],
    top_p: body.top_p ?? null,
    truncation: body.truncation ?? "disabled",
    usage: terminal ? toResponseUsage(state.usage) : null,
    ...(body.user ? { user: body.user } : {}),
    metadata: body.metadata ?? {},
  };
};

export type ResponseObject = ReturnType<typeof buildResponse>;
