import { openAIErrorBody, SSE_COMMENT_KEEP_ALIVE, type SurfaceProfile } from "@proxy/http-surface";

export const RESPONSES_SURFACE: SurfaceProfile = {
  api: "responses",
  errorBody: openAIErrorBody,
  keepAliveFrame: SSE_COMMENT_KEEP_ALIVE,
  modeHeaders: true,
  inputParam: "input",
};
