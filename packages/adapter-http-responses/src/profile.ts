import { type ErrorStatusOverride, SSE_COMMENT_KEEP_ALIVE, type SurfaceProfile } from "@proxy/http-surface";
import { responsesErrorBody } from "./response/response-error.js";

/**
 * `codex exec`, the Responses client, retries every 4xx but a 400 five times ("Reconnecting…
 * n/5"), so a failure only the operator can fix is a 400 here (a 403 on the other surfaces).
 */
export const responsesStatus: ErrorStatusOverride = (error, status) =>
  error.kind === "backend_auth" ? 400 : status;

export const RESPONSES_SURFACE: SurfaceProfile = {
  api: "responses",
  errorBody: responsesErrorBody,
  errorStatus: responsesStatus,
  keepAliveFrame: SSE_COMMENT_KEEP_ALIVE,
  modeHeaders: true,
  inputParam: "input",
};
