export { type DirectDriver, startDirectDriver, type TimedDirectTurn } from "./direct-driver.js";
export {
  hasProcfs,
  type ProcessTreeReport,
  reapedChildFaults,
  startEgressTrap,
  watchProcessTree,
} from "./host-activity.js";
export { type CodexHome, makeCodexHome } from "./make-codex-home.js";
export {
  type ProviderScript,
  type RecordedRequest,
  type ScriptedModelProvider,
  type ScriptedResponse,
  startScriptedModelProvider,
} from "./scripted-model-provider.js";
