export { COMPACT_CODEC, RESPONSES_CODEC } from "./codec.js";
export type { ResponsesAppDeps } from "./deps.js";
export { RESPONSES_SURFACE } from "./profile.js";
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
export { createResponsesApp, RESPONSES_ROUTES, responsesSurface } from "./surface.js";
