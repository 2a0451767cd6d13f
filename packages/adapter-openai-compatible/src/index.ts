export { type ChatMessage, toChatBody, toChatMessages } from "./chat-request.js";
export { mapTransportError, mapUpstreamStatus } from "./map-upstream-error.js";
export {
  createOpenAICompatibleBackend,
  type OpenAICompatibleBackend,
  type OpenAICompatibleBackendOptions,
} from "./openai-compatible-backend.js";
export { createThinkSplitter, type ThinkSegment, type ThinkSplitter } from "./think-splitter.js";
