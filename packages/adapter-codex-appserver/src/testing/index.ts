export { type DirectDriver, startDirectDriver, type TimedDirectTurn } from "./direct-driver.js";
export {
  type DirectRpc,
  initializeDirectRpc,
  openDirectRpc,
  type ServerRequestHandler,
} from "./direct-rpc.js";
export {
  hasProcfs,
  type ProcessTreeReport,
  reapedChildFaults,
  startEgressTrap,
  watchProcessTree,
} from "./host-activity.js";
export { type CodexHome, makeCodexHome } from "./make-codex-home.js";
export { noisePng } from "./noise-png.js";
export {
  type PlanWindow,
  type ProviderScript,
  planUsageHeaders,
  type RecordedRequest,
  type ScriptedModelProvider,
  type ScriptedResponse,
  startScriptedModelProvider,
  usageLimitReached,
} from "./scripted-model-provider.js";
