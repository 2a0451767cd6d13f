export { GEMINI_CODEC, GEMINI_SURFACE, geminiEndpointCodec } from "./codec.js";
export { API_KEY_INVALID, geminiError, geminiErrorBody } from "./gemini-error.js";
export { geminiModelList, isGoogleClient } from "./models.js";
export {
  decodeGeminiEndpoint,
  decodeGenerateContent,
  type GeminiTurnPlan,
} from "./request/decode-request.js";
export { toJsonSchema } from "./request/schema-dialect.js";
export type { GeminiConversations } from "./stored/conversation.js";
export {
  createGeminiApp,
  createGeminiEndpointApp,
  GEMINI_ENDPOINT_ROUTES,
  GEMINI_ROUTES,
  type GeminiDeps,
  type GeminiEndpointDeps,
  type GeminiSurfaceDeps,
  GOOGLE_KEY,
  geminiSurface,
} from "./surface.js";
