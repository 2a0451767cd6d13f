// biome-ignore-all assist/source/organizeImports: the public API is grouped by concept, not sorted.
/**
 * @proxy/core/gateway: what a gateway built on core needs beside the library API (src/index.ts):
 * runTurn and its settings and telemetry, the backend port and its middleware, admission, the
 * response and usage store ports, the clock and remote media. docs/core.md ("Gateway API") lists
 * these names and a test keeps the two in step.
 */

// Running one turn over a backend: what a surface starts, its settings, its telemetry.
export {
  type AssistantBatch,
  runTurn,
  type TurnDeps,
  type TurnHandle,
  type TurnInput,
} from "./turn/run-turn.js";
export { runCompactingTurn } from "./turn/compacting-turn.js";
export {
  DEFAULT_TURN_SETTINGS,
  OUTPUT_MODES,
  type OutputMode,
  resolveOutputMode,
  resolveToolMode,
  STOP_AFTER_TOOLS_MODES,
  type StopAfterToolsMode,
  TOOL_MODES,
  type ToolMode,
  type TurnSettings,
} from "./turn/turn-settings.js";
export type { AttemptEnd, TurnTrace } from "./turn/turn-trace.js";
export {
  createTelemetry,
  type ToolWarning,
  type TurnCounters,
  type TurnObserver,
  type TurnSummary,
  type TurnTelemetry,
} from "./turn/turn-telemetry.js";
// Compaction: a turn that replaces the conversation by a summary (see `BackendRequest.compaction`).
export {
  COMPACTION_INSTRUCTION,
  type CompactFirst,
  type CompactionKeep,
  type CompactionRequest,
  renderCompactionSummary,
} from "./model/compaction.js";
// The backend port: what a backend implements, and how it is read.
export type {
  BackendBatch,
  BackendCapabilities,
  BackendCompaction,
  BackendReadiness,
  BackendStream,
  ModelInfo,
  PlanLimits,
  PlanWindow,
  TextBackend,
} from "./ports/text-backend.js";
export type { BackendEvent } from "./events/stream-event.js";
export { backendStream, flattenBatches, onBatchesEnd } from "./ports/backend-stream.js";
export { type BackendMiddleware, wrapBackend } from "./ports/wrap-backend.js";
export {
  type AdmissionGate,
  type AdmissionGateOptions,
  createAdmissionGate,
} from "./admission/admission-gate.js";
// The response store port (stored Responses and conversations).
export {
  autocreatedConversationId,
  type Caller,
  type ChainLink,
  isStorableId,
  isTerminalStatus,
  type NewResponse,
  type Page,
  type PageQuery,
  type ResponseOutcome,
  type ResponseStore,
  type StoredConversation,
  type StoredEvent,
  type StoredItem,
  type StoredResponse,
  type StoredStatus,
} from "./ports/response-store.js";
// The other ports: time, remote media (and the pre-turn step that inlines remote images).
export { type Clock, fixedClock, systemClock, unixSeconds } from "./ports/clock.js";
export type { FetchedImage, MediaFetcher } from "./ports/media-fetcher.js";
export { inlineRemoteImages } from "./media/inline-remote-images.js";
// The usage store port (per-key usage and limits).
export {
  type KeyLoad,
  type MinuteTokens,
  type UsageCounts,
  type UsageCursor,
  type UsageFilter,
  type UsagePage,
  type UsagePageQuery,
  type UsageRow,
  type UsageStore,
  UsageWriteRejected,
  utcDay,
} from "./ports/usage-store.js";
