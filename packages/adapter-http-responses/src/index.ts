export { createResponsesApp, RESPONSES_ROUTES } from "./app.js";
export type { ResponsesAppDeps } from "./http/deps.js";
export { RESPONSES_SURFACE } from "./http/surface.js";
export { decodeResponsesRequest, type ParsedResponsesRequest } from "./request/decode-request.js";
export { createResponsesEncoder, type ResponsesEvent } from "./response/encoder.js";
export { toFunctionCallItem } from "./response/output-items.js";
export { CONVERSATION_ROUTES } from "./stored/conversation-routes.js";
export { failAbandonedTurns } from "./stored/reaper.js";
export { NOT_STORED_HEADER } from "./stored/record.js";
export {
  MAX_LEASE_MS,
  type RunningTurn,
  type StoredStateOptions,
  settleRunningTurns,
} from "./stored/state.js";
export { responsesSurface } from "./surface.js";
