import type { BackendEvent } from "../events/backend-event.js";
import type { ContentPart, ReasoningEffort } from "../model/conversation.js";
import type { JsonSchema } from "../model/tool-spec.js";

/** A message of prompt history as the backend should see it: roles preserved, tools already rendered. */
export interface PromptMessage {
  readonly role: "user" | "assistant" | "developer";
  readonly content: ReadonlyArray<ContentPart>;
}

/** One turn, fully rendered by the core: the backend needs no knowledge of tools. */
export interface BackendRequest {
  readonly model: string;
  /** The complete system prompt: gateway rules + client instructions + tool manifest. */
  readonly instructions: string;
  /** Prior conversation, oldest first. */
  readonly history: ReadonlyArray<PromptMessage>;
  /** The new user input that starts the turn. */
  readonly input: ReadonlyArray<ContentPart>;
  readonly reasoningEffort?: ReasoningEffort | undefined;
  readonly outputSchema?: JsonSchema | undefined;
  readonly maxOutputTokens?: number | undefined;
}

export interface ModelInfo {
  readonly id: string;
  readonly description?: string | undefined;
  readonly ownedBy?: string | undefined;
}

export interface BackendReadiness {
  readonly ready: boolean;
  readonly inFlight: number;
  readonly queued: number;
  readonly capacity: number;
  readonly restarts: number;
  readonly detail?: string | undefined;
}

/**
 * The port every text-only backend implements (v1). `stream` yields events for one turn; pre-start
 * failures may be thrown or yielded as `error`. Aborting `signal` must stop the turn promptly and
 * end the iterable.
 */
export interface TextBackend {
  readonly specificationVersion: "v1";
  readonly name: string;
  stream(request: BackendRequest, options: { readonly signal: AbortSignal }): AsyncIterable<BackendEvent>;
  listModels(): Promise<ReadonlyArray<ModelInfo>>;
  readiness(): BackendReadiness;
}
