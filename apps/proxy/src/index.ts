export {
  type AcquiredBackend,
  type BackendControl,
  type BackendStack,
  createBackendStack,
} from "./backend/backend-stack.js";
export { ConfigError, type GatewayConfig, resolveConfig, turnSettingsFrom } from "./config/config.js";
export { configurationDoc, configurationTable, helpText } from "./config/help.js";
export { OPTIONS } from "./config/options.js";
export { type AppDeps, createApp } from "./create-app.js";
export { main, type RunningGateway, startGateway, VERSION } from "./gateway.js";
export { createLogger } from "./observability/logger.js";
export { createMetrics } from "./observability/metrics.js";
export { Backend } from "./runtime.js";
export { GatewayStartError } from "./startup-problem.js";
