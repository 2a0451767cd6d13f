import type { BackendEvent } from "../events/stream-event.js";
import type { CompactionKeep } from "../model/compaction.js";
import type { ContentPart, ReasoningEffort, ReasoningSummary } from "../model/conversation.js";
import type { HostedTools } from "../model/hosted-tools.js";
import type { JsonSchema, ToolPolicy } from "../model/tool-spec.js";
import type { Caller } from "./response-store.js";

/** An earlier function call, as a native turn hands it back to the model. */
export interface NativeToolCall {
  readonly callId: string;
  /** The client's tool name (a backend that must rename tools maps it itself). */
  readonly name: string;
  /** The arguments JSON text, exactly as the client sent it back. */
  readonly arguments: string;
}

/**
 * One item of history as the backend should see it, roles preserved. A prompt turn only ever
 * holds content messages (tools rendered as text); a native turn also holds the assistant's
 * function calls and their outputs, which the backend injects as its own native items.
 */
export type PromptMessage =
  | { readonly role: "user" | "assistant" | "developer"; readonly content: ReadonlyArray<ContentPart> }
  | { readonly role: "assistant"; readonly toolCalls: ReadonlyArray<NativeToolCall> }
  | { readonly role: "tool"; readonly callId: string; readonly output: string };

/**
 * One turn, fully rendered by the core. A prompt turn needs no knowledge of tools; a native turn
 * (`tools` present) offers them to the model's own function calling.
 */
export interface BackendRequest {
  readonly model: string;
  /** The complete system prompt: gateway rules + client instructions (+ the tool manifest in prompt mode). */
  readonly instructions: string;
  /** Prior conversation, oldest first. */
  readonly history: ReadonlyArray<PromptMessage>;
  /**
   * The new user input that starts the turn. Empty in a native turn whose conversation ends with
   * tool outputs (they are the last items of `history`).
   */
  readonly input: ReadonlyArray<ContentPart>;
  /**
   * Present only for a native turn: the client's tools (only the forced one under a forced
   * tool_choice), the choice, and whether several calls are allowed. The core still enforces
   * the choice and the cap on what comes back, for backends that have no native equivalent.
   */
  readonly tools?: ToolPolicy | undefined;
  readonly reasoningEffort?: ReasoningEffort | undefined;
  readonly reasoningSummary?: ReasoningSummary | undefined;
  readonly outputSchema?: JsonSchema | undefined;
  readonly maxOutputTokens?: number | undefined;
  /**
   * The cache partition: an opaque caller key (never a secret). A backend that keeps anything across
   * requests (e.g. threads started ahead of time) keeps it per partition, so one caller can never
   * reuse, or time, what another caller's requests left behind.
   */
  readonly partition?: string | undefined;
  /**
   * The provider-run tools the client asked for (a hosted web search): a backend that cannot give
   * them refuses the turn (`hosted_tool_unsupported`) rather than answering without them.
   */
  readonly hostedTools?: HostedTools | undefined;
  /** Who asks, as the gateway authenticated them (owner digest, key name): for layers that act per caller. */
  readonly caller?: Caller | undefined;
  /**
   * Present on a compaction turn: the request itself is the portable summary turn (history plus the
   * compaction instruction, no tools), which any backend can just run. A backend that holds the
   * conversation's own thread may compact that thread natively instead (its cache kept) and answer
   * with its summary as text; it then keys the compacted thread by the history the client will send
   * back: the `keep` part of `history` followed by the summary as `renderCompactionSummary` shows it.
   */
  readonly compaction?: BackendCompaction | undefined;
}

/** The conversation of a compaction turn as its ordinary turns render it (the client's tools offered). */
export interface BackendCompaction {
  readonly keep: CompactionKeep;
  readonly instructions: string;
  readonly history: ReadonlyArray<PromptMessage>;
  readonly tools?: ToolPolicy | undefined;
}

export interface ModelInfo {
  readonly id: string;
  readonly description?: string | undefined;
  readonly ownedBy?: string | undefined;
  /** The tokens the model takes in one request (its context window), where the backend knows it. */
  readonly contextWindow?: number | undefined;
}

/** One usage window of the plan behind a backend (a ChatGPT plan's 5-hour or weekly limit). */
export interface PlanWindow {
  /** Share of the window's allowance used, 0–100. */
  readonly usedPercent: number;
  readonly windowMinutes?: number | undefined;
  /** When the window resets, unix seconds. */
  readonly resetsAt?: number | undefined;
}

/** The plan's usage as the backend last learned it; a window is absent while unknown. */
export interface PlanLimits {
  readonly primary?: PlanWindow | undefined;
  readonly secondary?: PlanWindow | undefined;
}

export interface BackendReadiness {
  readonly ready: boolean;
  readonly inFlight: number;
  readonly queued: number;
  readonly capacity: number;
  readonly restarts: number;
  /** Native turns: requests for tool results the backend holds open right now (should return to 0). */
  readonly pendingToolRequests?: number | undefined;
  /** Threads kept alive between requests to continue their conversation (codex), for a backend that keeps them. */
  readonly liveThreads?: number | undefined;
  readonly detail?: string | undefined;
  /** The plan's usage windows, for a backend that reports them (codex); absent when none is known. */
  readonly planLimits?: PlanLimits | undefined;
}

export interface BackendCapabilities {
  /**
   * The backend takes `BackendRequest.tools` and native history items, and streams the model's
   * own function calls as `tool-call*` events. May change at runtime (a backend that learns at
   * startup it cannot) — read it per request.
   */
  readonly nativeTools: boolean;
}

/** Events a backend hands over in one synchronous pass: everything its transport had buffered. */
export type BackendBatch = ReadonlyArray<BackendEvent>;

/**
 * One turn as a backend hands it over: the one shape every backend's `stream` returns. Read it in
 * batches (`batches()`, never an empty batch: what core and the gateway's layers read) or one event
 * at a time (tests, simple consumers); once, not both. `backendStream` in `ports/backend-stream.ts`
 * builds one from a batch source.
 */
export interface BackendStream extends AsyncIterable<BackendEvent> {
  batches(): AsyncIterable<BackendBatch>;
}

/**
 * How one turn runs: aborting `signal` stops it. `abort`, when the caller gives it, aborts that same
 * signal, so a layer that must stop the turn beneath it (the gateway's drain) calls it instead of
 * chaining an AbortController of its own in front of the caller's: one controller per attempt.
 */
export interface BackendStreamOptions {
  readonly signal: AbortSignal;
  readonly abort?: (() => void) | undefined;
}

/**
 * The port every text-only backend implements (v1). `stream` yields events for one turn; pre-start
 * failures may be thrown or yielded as `error`. Aborting `signal` must stop the turn promptly and
 * end the iterable. `stream` hands over, per batch, everything its transport had buffered (a
 * transport that has one event at a time yields batches of one); `wrapBackend` layers a backend.
 */
export interface TextBackend {
  readonly specificationVersion: "v1";
  readonly name: string;
  /** What the backend can do beyond text; absent means prompt-only (tools taught in the prompt). */
  readonly capabilities?: BackendCapabilities | undefined;
  /**
   * Capabilities for one requested model, for a backend that serves models through different
   * backends (the gateway's model router). `undefined` falls back to `capabilities`.
   */
  capabilitiesFor?(model: string): BackendCapabilities | undefined;
  stream(request: BackendRequest, options: BackendStreamOptions): BackendStream;
  listModels(): Promise<ReadonlyArray<ModelInfo>>;
  readiness(): BackendReadiness;
}
