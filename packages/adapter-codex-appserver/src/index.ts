export {
  type CodexAuthStatus,
  type CodexBackend,
  type CodexBackendOptions,
  createCodexBackend,
} from "./codex-backend.js";
export { resolveCodexCommand } from "./codex-binary.js";
export { type Logger, silentLogger } from "./logger.js";
export { type CodexTurnError, mapCodexTurnError, mapRpcError } from "./map-codex-error.js";
export { mapCodexFinishReason } from "./map-codex-finish-reason.js";
export type { WarmThreadCounts } from "./pool/warm-threads.js";
export { sealCatalog, sealModel, writeSealedCatalog } from "./sealing/sealed-catalog.js";
export {
  CODEX_ENV_ALLOW_LIST,
  SEALED_APP_SERVER_CONFIG,
  sealedAppServerArgs,
  sealedEnvironment,
} from "./sealing/sealed-environment.js";
export { sealedThreadConfig, sealedThreadParams } from "./sealing/sealed-thread-config.js";
export type { LiveConversationListener, LiveThreadCounts } from "./threads/live-threads.js";
export { AppServerStartError } from "./transport/rpc-errors.js";
export { type CodexTurnInput, toCodexTurnInput } from "./turn/codex-input.js";
