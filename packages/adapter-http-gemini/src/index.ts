export {
  createGeminiApp,
  createGeminiEndpointApp,
  GEMINI_ENDPOINT_ROUTES,
  GEMINI_ROUTES,
  type GeminiDeps,
  type GeminiEndpointDeps,
} from "./app.js";
export type { GeminiConversations } from "./conversation.js";
export { decodeGeminiEndpoint, decodeGenerateContent, type GeminiTurnPlan } from "./decode-request.js";
export { API_KEY_INVALID, GEMINI_SURFACE, geminiError, geminiErrorBody } from "./gemini-error.js";
export { geminiModelList, isGoogleClient } from "./models.js";
export { toJsonSchema } from "./schema-dialect.js";
export { type GeminiSurfaceDeps, GOOGLE_KEY, geminiSurface } from "./surface.js";
